#ifndef SIGNALKIT_INTERNAL_H
#define SIGNALKIT_INTERNAL_H

/* Internal helpers of the C layer, not exported (see signalkit.map). */

/* Stores `message` (copied, truncated) as the calling thread's last error. */
void sk__set_last_error(const char *message);

/* The calling thread's list of nested arrays and signal contents waiting to
 * be released (the Swift side's `SKReleaseList`, unretained), or NULL while
 * no such release is under way on the thread. See SKArray's and SKSignal's
 * deinits. */
void *sk__array_release_list(void);
void sk__set_array_release_list(void *list);

/* How many releases of signals and user pointers are nested on the calling
 * thread (SKSignal's and SKPointer's deinits). */
int sk__release_depth(void);
void sk__set_release_depth(int depth);

#endif
