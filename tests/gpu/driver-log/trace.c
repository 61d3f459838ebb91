/* Call tracing for driver_log.c: every function NVIDIA's runtime takes from the driver through
   cuGetProcAddress, and every function entry of the export tables it asks for, is handed out as a
   trampoline (trampolines.S, made by make-stubs.sh --trampolines) that logs the call's six integer
   argument registers, the 32 bytes each readable pointer argument points at before and after the
   call, and the result. Stack arguments pass through untouched, so any signature works. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRAMPOLINES 1024
void *driver_log_tramp_targets[TRAMPOLINES];
extern char driver_log_tramp_0[];
extern const unsigned driver_log_tramp_size;

static char *names[TRAMPOLINES];
static unsigned used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipeFds[2] = {-1, -1};
extern FILE *driver_log_file;

/* Whether `p` is 32 readable bytes: writing them into a pipe fails with EFAULT otherwise. */
static int readable(uint64_t p, unsigned char *out) {
  if (p < 4096 || pipeFds[0] < 0) return 0;
  if (write(pipeFds[1], (const void *)p, 32) != 32) return 0;
  return read(pipeFds[0], out, 32) == 32;
}

static int executable(uint64_t p) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps) return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && p >= lo && p < hi && perms[2] == 'x') found = 1;
  }
  fclose(maps);
  return found;
}

/* A trampoline that logs calls of `target` under `name`, or target itself when none is left. */
void *driver_log_wrap(void *target, const char *name) {
  if (!target) return target;
  pthread_mutex_lock(&lock);
  if (pipeFds[0] < 0 && pipe(pipeFds) != 0) pipeFds[0] = -1;
  void *result = target;
  if (used < TRAMPOLINES) {
    names[used] = strdup(name);
    driver_log_tramp_targets[used] = target;
    result = driver_log_tramp_0 + (size_t)used * driver_log_tramp_size;
    ++used;
  }
  pthread_mutex_unlock(&lock);
  return result;
}

/* An export table's copy whose function entries are trampolines. Tables start with their size in
   bytes, but for one (c693336e...), whose first words are functions. */
const void *driver_log_wrap_table(const void *table, const unsigned char *id) {
  if (!table) return table;
  const uint64_t *words = table;
  uint64_t n = words[0];
  int sized = n > 0 && n < 4096 && n % 8 == 0;
  n = sized ? n / 8 : 8;
  uint64_t *copy = calloc(n, 8);
  char name[96];
  int at = snprintf(name, sizeof name, "table-");
  for (int i = 0; i < 4; ++i) at += snprintf(name + at, sizeof name - at, "%02x", id[i]);
  for (uint64_t i = 0; i < n; ++i) {
    copy[i] = words[i];
    if ((sized && i == 0) || !executable(words[i])) continue;
    snprintf(name + at, sizeof name - at, "[%llu]", (unsigned long long)i);
    copy[i] = (uint64_t)driver_log_wrap((void *)words[i], name);
  }
  fprintf(driver_log_file, "table-copy");
  for (int i = 0; i < 16; ++i) fprintf(driver_log_file, "%02x", id[i]);
  for (uint64_t i = 0; i < n; ++i) fprintf(driver_log_file, " %llx", (unsigned long long)words[i]);
  fprintf(driver_log_file, "\n");
  return copy;
}

/* What a call in flight remembers (per thread, nested calls stack). */
struct Frame {
  uint64_t returnAddress, args[6];
  unsigned index, depth;
};
static __thread struct Frame frames[256];
static __thread unsigned depth;
static unsigned long long sequence;

static void dump(const char *tag, int i, uint64_t p) {
  unsigned char bytes[32];
  if (!readable(p, bytes)) return;
  fprintf(driver_log_file, "  %s a%d:", tag, i);
  for (int k = 0; k < 32; ++k) fprintf(driver_log_file, "%s%02x", k % 8 ? "" : " ", bytes[k]);
  fprintf(driver_log_file, "\n");
}

/* regs: rdi, rsi, rdx, rcx, r8, r9 as saved by the trampoline (pushed in that order, so reversed). */
void *driver_log_enter(unsigned index, const uint64_t *saved, uint64_t returnAddress) {
  struct Frame *f = &frames[depth < 256 ? depth : 255];
  f->returnAddress = returnAddress;
  f->index = index;
  for (int i = 0; i < 6; ++i) f->args[i] = saved[5 - i];
  pthread_mutex_lock(&lock);
  fprintf(driver_log_file, "call %llu t%lx d%u %s(", ++sequence, (unsigned long)pthread_self() & 0xffffff, depth,
          names[index]);
  for (int i = 0; i < 6; ++i) fprintf(driver_log_file, "%s%llx", i ? ", " : "", (unsigned long long)f->args[i]);
  fprintf(driver_log_file, ")\n");
  for (int i = 0; i < 6; ++i) dump("in ", i, f->args[i]);
  fflush(driver_log_file);
  pthread_mutex_unlock(&lock);
  ++depth;
  return driver_log_tramp_targets[index];
}

uint64_t driver_log_leave(uint64_t result) {
  --depth;
  struct Frame *f = &frames[depth < 256 ? depth : 255];
  pthread_mutex_lock(&lock);
  fprintf(driver_log_file, "ret  %s -> %llx\n", names[f->index], (unsigned long long)result);
  for (int i = 0; i < 6; ++i) dump("out", i, f->args[i]);
  fflush(driver_log_file);
  pthread_mutex_unlock(&lock);
  return f->returnAddress;
}
