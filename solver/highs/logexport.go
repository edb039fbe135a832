package highs

/*
#include "callback.h"
*/
import "C"

import (
	"io"
	"runtime/cgo"
)

// privoptHighsLog receives one HiGHS log message (called from callback.c) and
// writes it to the io.Writer behind the handle.
//
//export privoptHighsLog
func privoptHighsLog(handle C.uintptr_t, msg *C.char) {
	w, ok := cgo.Handle(handle).Value().(io.Writer)
	if !ok {
		return
	}
	_, _ = io.WriteString(w, C.GoString(msg))
}
