/*
 * The few kernel types the module's shared files use, for building them
 * in userspace (unit tests).
 */
#ifndef DT_TEST_KERNEL_TYPES_H
#define DT_TEST_KERNEL_TYPES_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#endif
