module github.com/privopt/privopt

go 1.26.8

require (
	github.com/ALTree/bigfloat v0.3.0
	github.com/lanl/highs v1.0.3
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/exp v0.0.0-20221217163422-3c43f8badb15 // indirect
