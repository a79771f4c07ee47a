#define _GNU_SOURCE
#include "_SwiftSignalKitShims.h"

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>

int _sks_is_main_thread(void) {
    return (long)getpid() == syscall(SYS_gettid);
}
#else
#include <pthread.h>

int _sks_is_main_thread(void) {
    return pthread_main_np() != 0;
}
#endif
