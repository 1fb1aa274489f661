#define _GNU_SOURCE
#include <unistd.h>

#include "clinux.h"

int clinux_syncfs(int fd) { return syncfs(fd); }
