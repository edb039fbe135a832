module github.com/privopt/privopt

go 1.26.8

require (
	github.com/ALTree/bigfloat v0.3.0
	gonum.org/v1/gonum v0.17.0
)
