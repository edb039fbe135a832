// Declarations shared by the cgo files of package highs. Only declarations: the
// HiGHS C API header defines constants and may be included by one translation
// unit only (capi.go).
#ifndef PRIVOPT_HIGHS_CALLBACK_H
#define PRIVOPT_HIGHS_CALLBACK_H
#include <stdint.h>
#include "lp_data/HighsCallbackStruct.h"

typedef struct {
  int interrupt;
  uintptr_t log_handle;
} privopt_cb_state;

void privopt_set_interrupt(privopt_cb_state* st, int v);
HighsInt privopt_set_callback(void* highs, privopt_cb_state* st);
#endif
