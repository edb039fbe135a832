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
  (void)out;
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
    if (in != NULL) {
      in->user_interrupt = __atomic_load_n(&st->interrupt, __ATOMIC_SEQ_CST) != 0;
    }
  }
}

void privopt_set_interrupt(privopt_cb_state* st, int v) {
  __atomic_store_n(&st->interrupt, v, __ATOMIC_SEQ_CST);
}

HighsInt privopt_set_callback(void* highs, privopt_cb_state* st) {
  return Highs_setCallback(highs, privopt_highs_callback, st);
}
