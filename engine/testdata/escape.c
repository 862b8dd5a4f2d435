// A module that tries to leave the sandbox, used by engine's sandbox tests:
// it is instantiated exactly as grammar modules are and asked to open host
// files, list directories and read the environment.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[4096];

__attribute__((export_name("path"))) char *get_path(void) { return path; }

// try_open opens path and reads a byte: the byte read (>= 0) on success, or
// -errno.
__attribute__((export_name("try_open"))) int try_open(void) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -errno;
  char c;
  ssize_t n = read(fd, &c, 1);
  close(fd);
  if (n != 1) return -1000;
  return (unsigned char)c;
}

// try_create creates path: 0 on success, or -errno.
__attribute__((export_name("try_create"))) int try_create(void) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -errno;
  close(fd);
  return 0;
}

// try_list counts the entries of path as a directory, or -errno.
__attribute__((export_name("try_list"))) int try_list(void) {
  DIR *d = opendir(path);
  if (!d) return -errno;
  int n = 0;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

// env_count is how many environment variables the module sees.
__attribute__((export_name("env_count"))) int env_count(void) {
  extern char **environ;
  int n = 0;
  for (char **e = environ; e && *e; e++) n++;
  return n;
}
