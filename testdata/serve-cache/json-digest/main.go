// The digest of opm's json cache layout, computed with Go's own archive/tar and hash/fnv: the
// oracle src/serve-cache/json-backend.test.ts checks our tar stream against.
//
// Usage: go run main.go <catalog dir> <cache dir>
// Prints the FNV-1a 64 of the tar stream of the catalog directory, then of <cache dir>/cache,
// each entry named by its path, with owner, names and times zeroed; symlinks left out.
package main

import (
	"archive/tar"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

func writeTree(w io.Writer, root fs.FS) error {
	tw := tar.NewWriter(w)
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = p
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}, time.Time{}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		f, err := root.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func main() {
	h := fnv.New64a()
	if err := writeTree(h, os.DirFS(os.Args[1])); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := writeTree(h, os.DirFS(filepath.Join(os.Args[2], "cache"))); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%x\n", h.Sum(nil))
}
