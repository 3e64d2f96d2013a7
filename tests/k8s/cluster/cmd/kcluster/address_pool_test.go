package main

import (
	"net"
	"testing"
)

func TestAddressPoolHandsOutAddressesInTurn(t *testing.T) {
	pool := newAddressPool()
	first, err := pool.take(0)
	if err != nil {
		t.Fatal(err)
	}
	if first != "127.0.0.2" {
		t.Fatalf("first address %s, want 127.0.0.2", first)
	}
	pool.release(first)
	second, err := pool.take(0)
	if err != nil {
		t.Fatal(err)
	}
	if second != "127.0.0.3" {
		t.Fatalf("after releasing %s the next address is %s, want 127.0.0.3 (not the one just freed)", first, second)
	}
}

func TestAddressPoolSkipsAnAddressWhosePortIsTaken(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	port := held.Addr().(*net.TCPAddr).Port
	ip, err := newAddressPool().take(port)
	if err != nil {
		t.Fatal(err)
	}
	if ip == "127.0.0.2" {
		t.Fatalf("handed out 127.0.0.2 although port %d is taken there", port)
	}
}

func TestAddressPoolRunsOut(t *testing.T) {
	pool := newAddressPool()
	for range 253 {
		if _, err := pool.take(0); err != nil {
			t.Fatal(err)
		}
	}
	if ip, err := pool.take(0); err == nil {
		t.Fatalf("a 254th address %s was handed out", ip)
	}
}
