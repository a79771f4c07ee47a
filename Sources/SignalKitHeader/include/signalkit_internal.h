#ifndef SIGNALKIT_INTERNAL_H
#define SIGNALKIT_INTERNAL_H

/* Internal helpers of the C layer, not exported (see signalkit.map). */

/* Stores `message` (copied, truncated) as the calling thread's last error. */
void sk__set_last_error(const char *message);

/* The calling thread's list of nested arrays waiting to be released (the
 * Swift side's `SKArrayReleaseList`, unretained), or NULL while no array
 * release is under way on the thread. See SKArray's deinit. */
void *sk__array_release_list(void);
void sk__set_array_release_list(void *list);

#endif
