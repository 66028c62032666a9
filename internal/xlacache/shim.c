// A PJRT plugin's API with its compile call wrapped: before compiling, the
// wrapper asks the Go side (cache.go) for an executable serialized by an
// earlier compile of the same program, options, plugin and device, and
// loads it (PJRT_Executable_DeserializeAndLoad); after a compile it
// serializes the executable (PJRT_Executable_Serialize) for the Go side to
// keep. Every other call goes to the plugin unchanged.
//
// The PJRT C API is a versioned ABI whose structs only ever grow at their
// end: each function is a pointer at a fixed slot of PJRT_Api (after
// struct_size, extension_start and the 24-byte PJRT_Api_Version), and each
// argument struct starts with struct_size and extension_start. The slots
// and argument layouts below are those of the functions this file calls
// (pjrt_c_api.h, API 0.x); goeval_xlacache_wrap refuses a plugin whose
// PJRT_Api is too short to hold them all.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "_cgo_export.h"

_Static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "64-bit only");

enum {
  apiFirstFn = 40,  // struct_size, extension_start, PJRT_Api_Version
  fnErrorDestroy = 0,
  fnErrorMessage = 1,
  fnClientPlatformVersion = 14,
  fnClientAddressableDevices = 16,
  fnClientCompile = 20,
  fnDeviceDescriptionKind = 26,
  fnDeviceGetDescription = 29,
  fnExecutableDestroy = 40,
  fnExecutableSerialize = 49,
  fnLoadedExecutableGetExecutable = 51,
  fnExecutableDeserializeAndLoad = 56,
  fnLast = fnExecutableDeserializeAndLoad,
};

typedef void* (*pjrt_fn)(void* args);  // returns a PJRT_Error* or NULL

typedef struct { size_t struct_size; void* ext; void* error; } error_destroy_args;
typedef struct { size_t struct_size; void* ext; const void* error; const char* message; size_t message_size; } error_message_args;
typedef struct { size_t struct_size; void* ext; char* code; size_t code_size; const char* format; size_t format_size; } program;
typedef struct { size_t struct_size; void* ext; void* client; const program* prog; const char* options; size_t options_size; void* executable; } compile_args;
typedef struct { size_t struct_size; void* ext; void* client; const char* version; size_t version_size; } platform_version_args;
typedef struct { size_t struct_size; void* ext; void* client; void* const* devices; size_t num_devices; } addressable_devices_args;
typedef struct { size_t struct_size; void* ext; void* device; void* description; } get_description_args;
typedef struct { size_t struct_size; void* ext; void* description; const char* kind; size_t kind_size; } kind_args;
typedef struct { size_t struct_size; void* ext; void* loaded; void* executable; } get_executable_args;
typedef struct { size_t struct_size; void* ext; void* executable; } executable_destroy_args;
typedef struct { size_t struct_size; void* ext; const void* executable; const char* bytes; size_t size; void* serialized; void (*deleter)(void*); } serialize_args;
typedef struct { size_t struct_size; void* ext; void* client; const char* bytes; size_t size; void* loaded; const char* options; size_t options_size; } deserialize_args;

static const char* real_api;  // the plugin's PJRT_Api

static pjrt_fn fn(int k) { return *(const pjrt_fn*)(real_api + apiFirstFn + 8 * k); }

// report hands err's message to the Go side (what failed, for one warning)
// and destroys err.
static void report(const char* what, void* err) {
  error_message_args m = {sizeof m, NULL, err, NULL, 0};
  fn(fnErrorMessage)(&m);
  goevalXLACacheReport((char*)what, (char*)m.message, m.message_size);
  error_destroy_args d = {sizeof d, NULL, err};
  fn(fnErrorDestroy)(&d);
}

// identity writes the client's platform version and first device's kind
// into out: part of the key, so that a cache folder shared between
// machines never hands one GPU's code to another.
static size_t identity(void* client, char* out, size_t cap) {
  platform_version_args v = {sizeof v, NULL, client, NULL, 0};
  void* err = fn(fnClientPlatformVersion)(&v);
  if (err) { report("platform version", err); return 0; }
  addressable_devices_args a = {sizeof a, NULL, client, NULL, 0};
  if ((err = fn(fnClientAddressableDevices)(&a))) { report("devices", err); return 0; }
  const char* kind = "none";
  size_t kind_size = 4;
  if (a.num_devices > 0) {
    get_description_args g = {sizeof g, NULL, a.devices[0], NULL};
    if ((err = fn(fnDeviceGetDescription)(&g))) { report("device description", err); return 0; }
    kind_args k = {sizeof k, NULL, g.description, NULL, 0};
    if ((err = fn(fnDeviceDescriptionKind)(&k))) { report("device kind", err); return 0; }
    kind = k.kind, kind_size = k.kind_size;
  }
  int n = snprintf(out, cap, "%.*s|%.*s|%zu", (int)v.version_size, v.version, (int)kind_size, kind, a.num_devices);
  return n < 0 ? 0 : ((size_t)n < cap ? (size_t)n : cap - 1);
}

// store serializes the loaded executable and hands the bytes to the Go side.
static void store(void* loaded, unsigned char* key) {
  get_executable_args g = {sizeof g, NULL, loaded, NULL};
  void* err = fn(fnLoadedExecutableGetExecutable)(&g);
  if (err) { report("getting the executable", err); return; }
  serialize_args s = {sizeof s, NULL, g.executable, NULL, 0, NULL, NULL};
  if ((err = fn(fnExecutableSerialize)(&s))) {
    report("serializing", err);
  } else {
    goevalXLACacheStore((char*)key, (char*)s.bytes, s.size);
    if (s.deleter) s.deleter(s.serialized);
  }
  executable_destroy_args x = {sizeof x, NULL, g.executable};
  if ((err = fn(fnExecutableDestroy)(&x))) report("freeing the executable", err);
}

// compile_cached is the plugin's PJRT_Client_Compile behind the cache.
static void* compile_cached(void* a) {
  compile_args* args = a;
  char ident[512];
  size_t n = identity(args->client, ident, sizeof ident);
  unsigned char key[32];
  int ok = n > 0 && goevalXLACacheKey(ident, n, args->prog->code, args->prog->code_size,
                                      (char*)args->prog->format, args->prog->format_size,
                                      (char*)args->options, args->options_size, (char*)key);
  if (ok) {
    size_t size = 0;
    char* blob = goevalXLACacheLoad((char*)key, &size);
    if (blob) {
      deserialize_args d = {sizeof d, NULL, args->client, blob, size, NULL, NULL, 0};
      void* err = fn(fnExecutableDeserializeAndLoad)(&d);
      free(blob);
      if (!err) {
        args->executable = d.loaded;
        goevalXLACacheHit();
        return NULL;
      }
      report("loading a cached executable", err);
      goevalXLACacheDrop((char*)key);
    }
  }
  void* err = fn(fnClientCompile)(args);
  if (err || !ok) return err;
  store(args->executable, key);
  return NULL;
}

const void* goeval_xlacache_wrap(const char* path, char* err, size_t cap) {
  void* h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (!h) { snprintf(err, cap, "%s", dlerror()); return NULL; }
  const void* (*get)(void) = (const void* (*)(void))dlsym(h, "GetPjrtApi");
  if (!get) { snprintf(err, cap, "no GetPjrtApi in the plugin"); return NULL; }
  const char* api = get();
  if (!api) { snprintf(err, cap, "the plugin's GetPjrtApi returned NULL"); return NULL; }
  size_t size = *(const size_t*)api;
  if (size < apiFirstFn + 8 * (fnLast + 1)) {
    snprintf(err, cap, "the plugin's PJRT API is too old (%zu bytes)", size);
    return NULL;
  }
  char* copy = malloc(size);  // lives as long as the process, as the plugin
  if (!copy) { snprintf(err, cap, "out of memory"); return NULL; }
  memcpy(copy, api, size);
  real_api = api;
  *(pjrt_fn*)(copy + apiFirstFn + 8 * fnClientCompile) = compile_cached;
  return copy;
}

// goeval_xlacache_compile_through calls the compile entry of api (a
// wrapped PJRT_Api) as go-xla would, for the package's tests: it returns
// the executable, or NULL with the plugin's error message in err.
void* goeval_xlacache_compile_through(const void* api, void* client, const char* code, size_t code_size,
                                      const char* options, size_t options_size, char* err, size_t cap) {
  program p = {sizeof p, NULL, (char*)code, code_size, "mlir", 4};
  compile_args a = {sizeof a, NULL, client, &p, options, options_size, NULL};
  void* e = (*(const pjrt_fn*)((const char*)api + apiFirstFn + 8 * fnClientCompile))(&a);
  if (e) {
    error_message_args m = {sizeof m, NULL, e, NULL, 0};
    fn(fnErrorMessage)(&m);
    snprintf(err, cap, "%.*s", (int)m.message_size, m.message);
    error_destroy_args d = {sizeof d, NULL, e};
    fn(fnErrorDestroy)(&d);
    return NULL;
  }
  return a.executable;
}
