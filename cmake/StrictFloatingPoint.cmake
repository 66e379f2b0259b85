# Every target that computes sampler values must round exactly as the spec
# says: no contraction of a*b+c into an FMA (GCC's default is to fuse), no
# fast-math, and no compile-time folding of exp/log (GCC folds with correct
# rounding, which differs from glibc's exp on some inputs).
# No flag that tunes for the build machine's CPU is used: it would remove
# Highway's dispatch targets.
function(exactsample_strict_fp target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX,C>:-ffp-contract=off -fno-fast-math
      -fno-builtin-exp -fno-builtin-log>)
endfunction()
