#ifndef SIGNALKIT_INTERNAL_H
#define SIGNALKIT_INTERNAL_H

/* Internal helpers of the C layer, not exported (see signalkit.map). */

/* Stores `message` (copied, truncated) as the calling thread's last error. */
void sk__set_last_error(const char *message);

#endif
