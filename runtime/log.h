/* SPDX-License-Identifier: MIT */
/* CCORE_DEBUG: WARN (default), INFO, TRACE; messages go to stderr. */
#ifndef CCORE_LOG_H
#define CCORE_LOG_H

enum log_level { LOG_WARN = 1, LOG_INFO = 2, LOG_TRACE = 3 };

/* Parse $CCORE_DEBUG once; -EINVAL with a message naming it if bad. */
int log_init(void);
int log_level(void);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
