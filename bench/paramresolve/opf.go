package main

import (
	"context"
	"fmt"
)

func runOPF(ctx context.Context, name string) error {
	fmt.Println("OPF: not yet")
	return nil
}
