//go:build wasip1

// nothing is a standard-Go module that exports no pi function.
package main

func main() {}
