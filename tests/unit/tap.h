/* Minimal TAP output for the unit tests (automake's tap-driver reads it). */
#ifndef DT_TEST_TAP_H
#define DT_TEST_TAP_H

#include <stdio.h>

static int tap_n;
static int tap_failed;

#define ok(cond, ...)                                                  \
	do {                                                           \
		int ok_ = !!(cond);                                    \
		printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n);      \
		printf(__VA_ARGS__);                                   \
		printf("\n");                                          \
		if (!ok_) {                                            \
			tap_failed++;                                  \
			printf("#   failed at %s:%d: %s\n", __FILE__,  \
			       __LINE__, #cond);                       \
		}                                                      \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
