package main

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
)

func main() {
	data := []byte("hello world")
	fmt.Printf("%x\n", sha256.Sum256(data))
	fmt.Printf("%x\n", md5.Sum(data))
	fmt.Printf("%x\n", sha1.Sum(data))
	h := sha512.New()
	h.Write(data)
	fmt.Println(hex.EncodeToString(h.Sum(nil))[:32])
}
