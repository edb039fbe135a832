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
  // Deterministic MIP work budget: at HiGHS's MIP limit checks, interrupt
  // once the MIP's total simplex iterations reach mip_lp_iter_limit (0: no
  // budget); work_stop records that the budget stopped the search.
  int64_t mip_lp_iter_limit;
  int work_stop;
} privopt_cb_state;

void privopt_set_interrupt(privopt_cb_state* st, int v);
void privopt_set_mip_budget(privopt_cb_state* st, int64_t lp_iter_limit);
HighsInt privopt_set_callback(void* highs, privopt_cb_state* st);
#endif
