// Command shortener is the demo project pi's `make run` works on.
package main

import (
	"fmt"
	"net/http"
)

func main() {
	http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	http.ListenAndServe("127.0.0.1:8080", nil)
}
