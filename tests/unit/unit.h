/* SPDX-License-Identifier: MIT */
/* Shared includes for the cmocka unit tests. */
#ifndef STACKVIEW_TESTS_UNIT_H
#define STACKVIEW_TESTS_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#endif
