// A module that uses all of the WASI a grammar module may import (write,
// lseek, close, clock_gettime and time), used by engine's sandbox tests.
#include <errno.h>
#include <time.h>
#include <unistd.h>

// say writes to fd: the count written, or -errno.
__attribute__((export_name("say"))) int say(int fd) {
  ssize_t n = write(fd, "hello\n", 6);
  return n < 0 ? -errno : (int)n;
}

// rewind seeks fd to its start: 0, or -errno.
__attribute__((export_name("rewind_fd"))) int rewind_fd(int fd) {
  return lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
}

// shut closes fd: 0, or -errno.
__attribute__((export_name("shut"))) int shut(int fd) {
  return close(fd) < 0 ? -errno : 0;
}

// mono is how many nanoseconds the monotonic clock moved between two reads.
__attribute__((export_name("mono"))) long long mono(void) {
  struct timespec a, b;
  if (clock_gettime(CLOCK_MONOTONIC, &a) || clock_gettime(CLOCK_MONOTONIC, &b)) return -1;
  return (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
}

// wall is the wall clock's seconds.
__attribute__((export_name("wall"))) long long wall(void) { return (long long)time(NULL); }
