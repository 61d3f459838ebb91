/* A libcuda.so.1 that logs what a program asks of NVIDIA's driver, for learning what NVIDIA's own
   runtime (linked statically, or its libcudart.so) needs from a driver (issue 15, item 4). Every
   function the driver exports (libcuda-symbols.txt) jumps to the real driver (stubs.S, made by
   make-stubs.sh) and marks itself called; cuGetProcAddress[_v2] and cuGetExportTable are logged
   call by call. At exit the log gets the exported functions that were called directly.
   Environment: DRIVER_LOG_REAL (the real libcuda.so.1, by path), DRIVER_LOG (the log file).
   Build: make-stubs.sh > stubs.S && gcc -shared -fPIC -O1 -o libcuda.so.1 driver_log.c stubs.S -ldl */
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

static FILE *logFile;
static void *real;
static GetProcAddressV2 realProcV2;
static GetProcAddress realProc;
static GetExportTable realExportTable;

int missingFunction(void) { return 500; /* CUDA_ERROR_NOT_FOUND */ }

__attribute__((constructor)) static void start(void) {
  const char *path = getenv("DRIVER_LOG_REAL");
  const char *logPath = getenv("DRIVER_LOG");
  logFile = logPath ? fopen(logPath, "a") : stderr;
  if (!logFile) logFile = stderr;
  real = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
  fprintf(logFile, "start pid %d real %s %s\n", (int)getpid(), path ? path : "(unset)", real ? "loaded" : dlerror());
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
    if (driver_log_called[i]) fprintf(logFile, "called %s\n", driver_log_names[i]);
  fprintf(logFile, "end\n");
  fflush(logFile);
}

int cuGetExportTable(const void **table, const unsigned char *id) {
  int r = realExportTable ? realExportTable(table, id) : 500;
  fprintf(logFile, "export-table ");
  for (int i = 0; i < 16; ++i) fprintf(logFile, "%02x", id ? id[i] : 0);
  /* A table's first word is its size in bytes, by what is seen of them. */
  uint64_t first = (r == 0 && table && *table) ? *(const uint64_t *)*table : 0;
  fprintf(logFile, " -> %d first-word %llu\n", r, (unsigned long long)first);
  fflush(logFile);
  return r;
}

int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status) {
  int found = -1;
  int r = realProcV2 ? realProcV2(symbol, pfn, version, flags, &found) : 500;
  if (status) *status = found;
  fprintf(logFile, "proc %s %d %llu -> %d status %d\n", symbol ? symbol : "(null)", version,
          (unsigned long long)flags, r, found);
  if (r == 0 && pfn && symbol) {
    if (!strcmp(symbol, "cuGetExportTable")) *pfn = (void *)&cuGetExportTable;
    if (!strcmp(symbol, "cuGetProcAddress") && version >= 12000) *pfn = (void *)&cuGetProcAddress_v2;
  }
  return r;
}

int cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags) {
  int r = realProc ? realProc(symbol, pfn, version, flags) : 500;
  fprintf(logFile, "proc-v1 %s %d %llu -> %d\n", symbol ? symbol : "(null)", version, (unsigned long long)flags, r);
  if (r == 0 && pfn && symbol && !strcmp(symbol, "cuGetExportTable")) *pfn = (void *)&cuGetExportTable;
  return r;
}
