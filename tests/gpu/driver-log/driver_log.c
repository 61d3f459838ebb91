/* A libcuda.so.1 that logs what a program asks of NVIDIA's driver, for learning what NVIDIA's own
   runtime (linked statically, or its libcudart.so) needs from a driver (issue 15, item 4). Every
   function the driver exports (libcuda-symbols.txt) jumps to the real driver (stubs.S, made by
   make-stubs.sh) and marks itself called; cuGetProcAddress[_v2] and cuGetExportTable are logged
   call by call. At exit the log gets the exported functions that were called directly.
   Environment: DRIVER_LOG_REAL (the real libcuda.so.1, by path), DRIVER_LOG (the log file),
   DRIVER_LOG_TRACE=1 (trace.c: log every call of the functions and export-table entries handed out).
   Build: make-stubs.sh > stubs.S && make-stubs.sh --trampolines > trampolines.S &&
   gcc -shared -fPIC -O1 -o libcuda.so.1 driver_log.c trace.c stubs.S trampolines.S -ldl -lpthread */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *driver_log_table[];
extern unsigned char driver_log_called[];
extern const char *const driver_log_names[];
extern const unsigned driver_log_count;

typedef int (*GetProcAddressV2)(const char *, void **, int, uint64_t, int *);
typedef int (*GetProcAddress)(const char *, void **, int, uint64_t);
typedef int (*GetExportTable)(const void **, const unsigned char *);

FILE *driver_log_file;
static int tracing;
void *driver_log_wrap(void *target, const char *name);
const void *driver_log_wrap_table(const void *table, const unsigned char *id);
static void *real;
static GetProcAddressV2 realProcV2;
static GetProcAddress realProc;
static GetExportTable realExportTable;

int missingFunction(void) { return 500; /* CUDA_ERROR_NOT_FOUND */ }

__attribute__((constructor)) static void start(void) {
  const char *path = getenv("DRIVER_LOG_REAL");
  const char *logPath = getenv("DRIVER_LOG");
  driver_log_file = logPath ? fopen(logPath, "a") : stderr;
  if (!driver_log_file) driver_log_file = stderr;
  tracing = getenv("DRIVER_LOG_TRACE") && *getenv("DRIVER_LOG_TRACE") == '1';
  real = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
  fprintf(driver_log_file, "start pid %d real %s %s\n", (int)getpid(), path ? path : "(unset)", real ? "loaded" : dlerror());
  for (unsigned i = 0; i < driver_log_count; ++i) {
    void *f = real ? dlsym(real, driver_log_names[i]) : NULL;
    driver_log_table[i] = f ? f : (void *)&missingFunction;
  }
  if (real) {
    realProcV2 = (GetProcAddressV2)dlsym(real, "cuGetProcAddress_v2");
    realProc = (GetProcAddress)dlsym(real, "cuGetProcAddress");
    realExportTable = (GetExportTable)dlsym(real, "cuGetExportTable");
  }
}

__attribute__((destructor)) static void stop(void) {
  for (unsigned i = 0; i < driver_log_count; ++i)
    if (driver_log_called[i]) fprintf(driver_log_file, "called %s\n", driver_log_names[i]);
  fprintf(driver_log_file, "end\n");
  fflush(driver_log_file);
}

/* Whether the table's id (as hex) starts with one of the comma-separated prefixes in `list`. */
static int listed(const char *list, const unsigned char *id) {
  char hex[33];
  for (int i = 0; i < 16; ++i) snprintf(hex + 2 * i, 3, "%02x", id ? id[i] : 0);
  for (const char *p = list; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n && n <= 32 && !strncmp(hex, p, n)) return 1;
    p += n + (p[n] == ',');
  }
  return 0;
}

int cuGetExportTable(const void **table, const unsigned char *id) {
  /* DRIVER_LOG_HIDE: tables answered CUDA_ERROR_NOT_SUPPORTED; DRIVER_LOG_KEEP: tables handed out
     unwrapped even when tracing. */
  int hidden = listed(getenv("DRIVER_LOG_HIDE"), id);
  int r = hidden ? 801 : realExportTable ? realExportTable(table, id) : 500;
  fprintf(driver_log_file, "export-table ");
  for (int i = 0; i < 16; ++i) fprintf(driver_log_file, "%02x", id ? id[i] : 0);
  /* A table's first word is its size in bytes, by what is seen of them. */
  uint64_t first = (r == 0 && table && *table) ? *(const uint64_t *)*table : 0;
  fprintf(driver_log_file, " -> %d first-word %llu\n", r, (unsigned long long)first);
  fflush(driver_log_file);
  if (tracing && !listed(getenv("DRIVER_LOG_KEEP"), id) && r == 0 && table && *table) *table = driver_log_wrap_table(*table, id);
  return r;
}

int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags);

int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status) {
  int found = -1;
  int r = realProcV2 ? realProcV2(symbol, pfn, version, flags, &found) : 500;
  if (status) *status = found;
  fprintf(driver_log_file, "proc %s %d %llu -> %d status %d\n", symbol ? symbol : "(null)", version,
          (unsigned long long)flags, r, found);
  if (r == 0 && pfn && symbol) {
    if (!strcmp(symbol, "cuGetExportTable")) *pfn = (void *)&cuGetExportTable;
    else if (!strcmp(symbol, "cuGetProcAddress") && version >= 12000) *pfn = (void *)&cuGetProcAddress_v2;
    else if (!strcmp(symbol, "cuGetProcAddress")) *pfn = (void *)&cuGetProcAddress;
    else if (tracing && *pfn) {
      char name[160];
      snprintf(name, sizeof name, "%s@%d", symbol, version);
      *pfn = driver_log_wrap(*pfn, name);
    }
  }
  return r;
}

int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags) {
  int r = realProc ? realProc(symbol, pfn, version, flags) : 500;
  fprintf(driver_log_file, "proc-v1 %s %d %llu -> %d\n", symbol ? symbol : "(null)", version, (unsigned long long)flags, r);
  if (r == 0 && pfn && symbol && !strcmp(symbol, "cuGetExportTable")) *pfn = (void *)&cuGetExportTable;
  return r;
}
