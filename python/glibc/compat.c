/*
 * glibc 2.28 compatibility of the zkdv extension (see python/build.rs).
 *
 * The extension links LLVM, MLIR and libstdc++ statically, compiled against
 * the build machine's glibc headers; Rust's standard library links against
 * its glibc too. Each function below replaces, through `ld --wrap`, a symbol
 * version newer than glibc 2.28 with what glibc 2.28 offers, so that the
 * wheel's symbol versions stay at or below GLIBC_2.28 (manylinux_2_28):
 *
 * - stat, lstat, fstat and their 64-bit names (GLIBC_2.33): the __xstat
 *   family they were before 2.33, still exported by every glibc since;
 * - exp, log, log2, pow (GLIBC_2.29, which dropped the SVID error handling):
 *   their GLIBC_2.2.5 versions, which compute the same values;
 * - gettid (GLIBC_2.30): the system call;
 * - mallinfo2 (GLIBC_2.33): mallinfo, widened;
 * - arc4random (GLIBC_2.36): getrandom (GLIBC_2.25), or /dev/urandom;
 * - __libc_single_threaded (GLIBC_2.32, read by libstdc++'s inline code to
 *   skip atomic operations): always 0, "other threads may exist", so every
 *   reference count stays atomic.
 *
 * The pthread and dl functions that moved into libc in glibc 2.32 and 2.34
 * need no code: stub libraries (python/build.rs) bind them to their old
 * versions in libpthread.so.0 and libdl.so.2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The `struct stat` version the __xstat family takes on x86-64. */
#define STAT_VERSION 1

#define OLD(name, symbol)                                                      \
  __asm__(".symver " #name ", " #symbol "@GLIBC_2.2.5")

extern int zkdv_xstat(int, const char *, struct stat *);
extern int zkdv_xstat64(int, const char *, struct stat *);
extern int zkdv_lxstat(int, const char *, struct stat *);
extern int zkdv_lxstat64(int, const char *, struct stat *);
extern int zkdv_fxstat(int, int, struct stat *);
extern int zkdv_fxstat64(int, int, struct stat *);
OLD(zkdv_xstat, __xstat);
OLD(zkdv_xstat64, __xstat64);
OLD(zkdv_lxstat, __lxstat);
OLD(zkdv_lxstat64, __lxstat64);
OLD(zkdv_fxstat, __fxstat);
OLD(zkdv_fxstat64, __fxstat64);

int __wrap_stat(const char *path, struct stat *buf) {
  return zkdv_xstat(STAT_VERSION, path, buf);
}
int __wrap_stat64(const char *path, struct stat *buf) {
  return zkdv_xstat64(STAT_VERSION, path, buf);
}
int __wrap_lstat(const char *path, struct stat *buf) {
  return zkdv_lxstat(STAT_VERSION, path, buf);
}
int __wrap_lstat64(const char *path, struct stat *buf) {
  return zkdv_lxstat64(STAT_VERSION, path, buf);
}
int __wrap_fstat(int fd, struct stat *buf) {
  return zkdv_fxstat(STAT_VERSION, fd, buf);
}
int __wrap_fstat64(int fd, struct stat *buf) {
  return zkdv_fxstat64(STAT_VERSION, fd, buf);
}

extern double zkdv_exp(double);
extern double zkdv_log(double);
extern double zkdv_log2(double);
extern double zkdv_pow(double, double);
OLD(zkdv_exp, exp);
OLD(zkdv_log, log);
OLD(zkdv_log2, log2);
OLD(zkdv_pow, pow);

double __wrap_exp(double x) { return zkdv_exp(x); }
double __wrap_log(double x) { return zkdv_log(x); }
double __wrap_log2(double x) { return zkdv_log2(x); }
double __wrap_pow(double x, double y) { return zkdv_pow(x, y); }

pid_t __wrap_gettid(void) { return (pid_t)syscall(SYS_gettid); }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct mallinfo2 __wrap_mallinfo2(void) {
  struct mallinfo old = mallinfo();
  struct mallinfo2 info = {
      .arena = (unsigned)old.arena,
      .ordblks = (unsigned)old.ordblks,
      .smblks = (unsigned)old.smblks,
      .hblks = (unsigned)old.hblks,
      .hblkhd = (unsigned)old.hblkhd,
      .usmblks = (unsigned)old.usmblks,
      .fsmblks = (unsigned)old.fsmblks,
      .uordblks = (unsigned)old.uordblks,
      .fordblks = (unsigned)old.fordblks,
      .keepcost = (unsigned)old.keepcost,
  };
  return info;
}
#pragma GCC diagnostic pop

uint32_t __wrap_arc4random(void) {
  uint32_t value;
  for (;;) {
    ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == (ssize_t)sizeof value)
      return value;
    if (got < 0 && errno == EINTR)
      continue;
    break; /* ENOSYS: a kernel older than 3.17 */
  }
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t got;
    do
      got = read(fd, &value, sizeof value);
    while (got < 0 && errno == EINTR);
    close(fd);
    if (got == (ssize_t)sizeof value)
      return value;
  }
  abort(); /* arc4random cannot fail */
}

char __wrap___libc_single_threaded = 0;
