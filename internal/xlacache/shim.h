// The compile-cache shim between go-xla and a PJRT plugin (shim.c).
#ifndef GOEVAL_XLACACHE_SHIM_H
#define GOEVAL_XLACACHE_SHIM_H
#include <stddef.h>

// goeval_xlacache_wrap loads the PJRT plugin at path and returns a copy of
// its PJRT_Api with PJRT_Client_Compile replaced by the caching compile,
// or NULL with the reason in err (cap bytes).
const void* goeval_xlacache_wrap(const char* path, char* err, size_t cap);

// goeval_xlacache_compile_through compiles through api's compile entry
// (the package's tests): the executable, or NULL with the error in err.
void* goeval_xlacache_compile_through(const void* api, void* client, const char* code, size_t code_size,
                                      const char* options, size_t options_size, char* err, size_t cap);

#endif
