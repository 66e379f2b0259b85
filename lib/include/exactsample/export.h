/* EXACTSAMPLE_API marks what libexactsample.so exports: the C ABI and the
 * public C++ API. The library is compiled with hidden visibility, so its
 * internals (the kernels, Highway's per-target instances) stay inside it.
 * The static library needs no marking; the macro is harmless there. */
#ifndef EXACTSAMPLE_EXPORT_H_
#define EXACTSAMPLE_EXPORT_H_

#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(EXACTSAMPLE_BUILDING_SHARED)
#define EXACTSAMPLE_API __declspec(dllexport)
#elif defined(EXACTSAMPLE_USING_SHARED)
#define EXACTSAMPLE_API __declspec(dllimport)
#else
#define EXACTSAMPLE_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define EXACTSAMPLE_API __attribute__((visibility("default")))
#else
#define EXACTSAMPLE_API
#endif

#endif /* EXACTSAMPLE_EXPORT_H_ */
