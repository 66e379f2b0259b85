/* exactsample's version, for C and C++ (both public headers include this
 * file). CMakeLists.txt reads the project version from these three lines,
 * so this is the only place it is written; exactsample_version() returns
 * EXACTSAMPLE_VERSION_STRING of the library actually loaded. */
#ifndef EXACTSAMPLE_VERSION_H_
#define EXACTSAMPLE_VERSION_H_

#define EXACTSAMPLE_VERSION_MAJOR 0
#define EXACTSAMPLE_VERSION_MINOR 1
#define EXACTSAMPLE_VERSION_PATCH 0

#define EXACTSAMPLE_VERSION_STR_(x) #x
#define EXACTSAMPLE_VERSION_STR(x) EXACTSAMPLE_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH" */
#define EXACTSAMPLE_VERSION_STRING                   \
  EXACTSAMPLE_VERSION_STR(EXACTSAMPLE_VERSION_MAJOR) "." \
  EXACTSAMPLE_VERSION_STR(EXACTSAMPLE_VERSION_MINOR) "." \
  EXACTSAMPLE_VERSION_STR(EXACTSAMPLE_VERSION_PATCH)
/* One number that grows with the version: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define EXACTSAMPLE_VERSION_NUMBER                                        \
  (EXACTSAMPLE_VERSION_MAJOR * 10000 + EXACTSAMPLE_VERSION_MINOR * 100 + \
   EXACTSAMPLE_VERSION_PATCH)

#endif /* EXACTSAMPLE_VERSION_H_ */
