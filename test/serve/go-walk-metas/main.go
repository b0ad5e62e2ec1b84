// Command go-walk-metas writes a catalog directory's blobs as operator-registry's
// declcfg.WalkMetasFS hands them on when it walks on one goroutine: each Meta.Blob in turn on
// stdout (what catalogd stores as a catalog's catalog.jsonl), and, when a second argument names a
// file, one JSON line per blob there with the schema, package and name declcfg.Meta read from it.
// The catalog API tests compare opm serve --http-addr's answers with these.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

type fields struct {
	Schema  string `json:"schema"`
	Package string `json:"package"`
	Name    string `json:"name"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go-walk-metas CATALOG_DIR [FIELDS_FILE]")
		os.Exit(2)
	}
	var enc *json.Encoder
	if len(os.Args) > 2 {
		f, err := os.Create(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		enc = json.NewEncoder(f)
	}
	walk := func(_ string, meta *declcfg.Meta, err error) error {
		if err != nil {
			return err
		}
		if _, err := os.Stdout.Write(meta.Blob); err != nil {
			return err
		}
		if enc != nil {
			return enc.Encode(fields{meta.Schema, meta.Package, meta.Name})
		}
		return nil
	}
	if err := declcfg.WalkMetasFS(context.Background(), os.DirFS(os.Args[1]), walk, declcfg.WithConcurrency(1)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
