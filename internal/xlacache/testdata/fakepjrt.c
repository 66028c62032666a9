// A fake PJRT plugin for TestShim: only the calls the compile cache's shim
// makes, with the argument layouts of the PJRT C API. A compiled
// executable is the text "CMP:<program>", a loaded one "LOD:<program>",
// a serialized one "SER:<program>". Environment knobs: FAKE_PJRT_SHORT (a
// PJRT_Api too short for the shim), FAKE_PJRT_NO_SERIALIZE (serialization
// fails), FAKE_PJRT_KIND (the device kind). A program starting "FAIL"
// fails to compile.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char msg[256]; } fake_error;
typedef struct { size_t struct_size; void* ext; char* code; size_t code_size; const char* format; size_t format_size; } program;

static void* mkerr(const char* m) {
  fake_error* e = malloc(sizeof *e);
  snprintf(e->msg, sizeof e->msg, "%s", m);
  return e;
}

static char* mkexe(const char* tag, const char* code, size_t n) {
  char* e = malloc(n + 5);
  memcpy(e, tag, 4);
  memcpy(e + 4, code, n);
  e[n + 4] = 0;
  return e;
}

static void* error_destroy(void* a) {
  struct { size_t s; void* x; void* e; }* p = a;
  free(p->e);
  return NULL;
}

static void* error_message(void* a) {
  struct { size_t s; void* x; fake_error* e; const char* m; size_t n; }* p = a;
  p->m = p->e->msg, p->n = strlen(p->e->msg);
  return NULL;
}

static void* platform_version(void* a) {
  struct { size_t s; void* x; void* c; const char* v; size_t n; }* p = a;
  p->v = "fake 1.0", p->n = 8;
  return NULL;
}

static int device;

static void* addressable_devices(void* a) {
  static void* devices[1] = {&device};
  struct { size_t s; void* x; void* c; void* const* d; size_t n; }* p = a;
  p->d = devices, p->n = 1;
  return NULL;
}

static void* get_description(void* a) {
  struct { size_t s; void* x; void* d; void* desc; }* p = a;
  p->desc = &device;
  return NULL;
}

static void* kind(void* a) {
  struct { size_t s; void* x; void* d; const char* k; size_t n; }* p = a;
  p->k = getenv("FAKE_PJRT_KIND") ? getenv("FAKE_PJRT_KIND") : "FakeGPU";
  p->n = strlen(p->k);
  return NULL;
}

static void* compile(void* a) {
  struct { size_t s; void* x; void* c; const program* prog; const char* o; size_t on; void* exe; }* p = a;
  if (p->prog->code_size >= 4 && memcmp(p->prog->code, "FAIL", 4) == 0) return mkerr("fake: compile failed");
  p->exe = mkexe("CMP:", p->prog->code, p->prog->code_size);
  return NULL;
}

static void* get_executable(void* a) {
  struct { size_t s; void* x; char* loaded; void* exe; }* p = a;
  p->exe = strdup(p->loaded);
  return NULL;
}

static void* executable_destroy(void* a) {
  struct { size_t s; void* x; void* exe; }* p = a;
  free(p->exe);
  return NULL;
}

static void deleter(void* s) { free(s); }

static void* serialize(void* a) {
  struct { size_t s; void* x; const char* exe; const char* b; size_t n; void* ser; void (*del)(void*); }* p = a;
  if (getenv("FAKE_PJRT_NO_SERIALIZE")) return mkerr("fake: serialization unimplemented");
  char* b = mkexe("SER:", p->exe + 4, strlen(p->exe + 4));
  p->b = b, p->n = strlen(b), p->ser = b, p->del = deleter;
  return NULL;
}

static void* deserialize(void* a) {
  struct { size_t s; void* x; void* c; const char* b; size_t n; void* loaded; const char* o; size_t on; }* p = a;
  if (p->n < 4 || memcmp(p->b, "SER:", 4) != 0) return mkerr("fake: not a serialized executable");
  p->loaded = mkexe("LOD:", p->b + 4, p->n - 4);
  return NULL;
}

static char api[40 + 8 * 60];

static void set(int slot, void* (*f)(void*)) { memcpy(api + 40 + 8 * slot, &f, sizeof f); }

const void* GetPjrtApi(void) {
  memset(api, 0, sizeof api);
  size_t size = getenv("FAKE_PJRT_SHORT") ? 40 + 8 * 30 : sizeof api;
  memcpy(api, &size, sizeof size);
  set(0, error_destroy);
  set(1, error_message);
  set(14, platform_version);
  set(16, addressable_devices);
  set(20, compile);
  set(26, kind);
  set(29, get_description);
  set(40, executable_destroy);
  set(49, serialize);
  set(51, get_executable);
  set(56, deserialize);
  return api;
}
