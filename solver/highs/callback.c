// C side of the HiGHS callback: polls an interrupt flag set from Go and forwards
// log lines to Go when a log writer is attached.
#include <stddef.h>
#include "callback.h"

// From interfaces/highs_c_api.h (not included here: it defines constants and is
// compiled in capi.go).
HighsInt Highs_setCallback(void* highs, HighsCCallbackType user_callback,
                           void* user_callback_data);
enum {
  privopt_cb_logging = 0,            // kHighsCallbackLogging
  privopt_cb_simplex_interrupt = 1,  // kHighsCallbackSimplexInterrupt
  privopt_cb_ipm_interrupt = 2,      // kHighsCallbackIpmInterrupt
  privopt_cb_mip_interrupt = 6       // kHighsCallbackMipInterrupt
};

extern void privoptHighsLog(uintptr_t handle, char* msg);

static void privopt_highs_callback(int type, const char* msg,
                                   const HighsCallbackDataOut* out,
                                   HighsCallbackDataIn* in, void* data) {
  privopt_cb_state* st = (privopt_cb_state*)data;
  if (st == NULL) return;
  if (type == privopt_cb_logging) {
    if (st->log_handle != 0 && msg != NULL) {
      privoptHighsLog(st->log_handle, (char*)msg);
    }
    return;
  }
  if (type == privopt_cb_simplex_interrupt || type == privopt_cb_ipm_interrupt ||
      type == privopt_cb_mip_interrupt) {
    // Set both ways: HiGHS keeps user_interrupt between runs.
    int stop = __atomic_load_n(&st->interrupt, __ATOMIC_SEQ_CST) != 0;
    // The work budget: HiGHS calls the MIP interrupt callback at fixed points
    // of its (deterministic) search with the iteration count so far, so a
    // search stopped here stops at the same point on every run.
    if (!stop && type == privopt_cb_mip_interrupt && out != NULL &&
        st->mip_lp_iter_limit > 0 &&
        out->mip_total_lp_iterations >= st->mip_lp_iter_limit) {
      st->work_stop = 1;
      stop = 1;
    }
    if (in != NULL) {
      in->user_interrupt = stop;
    }
  }
}

void privopt_set_interrupt(privopt_cb_state* st, int v) {
  __atomic_store_n(&st->interrupt, v, __ATOMIC_SEQ_CST);
}

void privopt_set_mip_budget(privopt_cb_state* st, int64_t lp_iter_limit) {
  st->mip_lp_iter_limit = lp_iter_limit;
  st->work_stop = 0;
}

HighsInt privopt_set_callback(void* highs, privopt_cb_state* st) {
  return Highs_setCallback(highs, privopt_highs_callback, st);
}
