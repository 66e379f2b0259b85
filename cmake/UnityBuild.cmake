# Targets of many short files compile as a few unity sources (CMake's
# UNITY_BUILD): each batch reads the heavy headers its files share (the
# standard library, nlohmann-json, CLI11, pybind11) once instead of once per
# file. Names private to a file are distinct across its target, and every
# file includes what it uses: EXACTSAMPLE_UNITY=OFF compiles each file alone
# (CI's ThreadSanitizer build does).
# Highway's kernel files (simd/*.cc) include themselves once per target
# through foreach_target.h, so they stay out of the batches.
option(EXACTSAMPLE_UNITY "Compile the library, tools and Python module in unity batches" ON)
set(EXACTSAMPLE_UNITY_BATCH 8 CACHE STRING "Files per unity batch")
function(exactsample_unity target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${EXACTSAMPLE_UNITY}
    UNITY_BUILD_BATCH_SIZE ${EXACTSAMPLE_UNITY_BATCH})
endfunction()
