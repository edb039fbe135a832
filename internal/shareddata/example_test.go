package shareddata_test

import (
	"fmt"
	"os"

	"github.com/privopt/privopt/internal/shareddata"
)

// Example points the lookup at a folder of one's own through the environment.
func Example() {
	dir, _ := os.MkdirTemp("", "shared-data")
	defer os.RemoveAll(dir)
	os.Setenv(shareddata.EnvVar, dir)
	defer os.Unsetenv(shareddata.EnvVar)
	got, err := shareddata.Dir()
	fmt.Println(got == dir, err)
	// Output: true <nil>
}
