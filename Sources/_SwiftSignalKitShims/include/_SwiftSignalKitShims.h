#ifndef SWIFTSIGNALKIT_SHIMS_H
#define SWIFTSIGNALKIT_SHIMS_H

/* Small C helpers for the Swift core; not part of any public API. */

/* Nonzero when the calling thread is the process's main thread. */
int _sks_is_main_thread(void);

#endif
