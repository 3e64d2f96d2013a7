package main

import (
	"reflect"
	"strings"
	"testing"
)

// Trimmed from `go build -n -trimpath -buildvcs=false -ldflags='-s -w'` of go1.26.8.
const probeOutput = `mkdir -p $WORK/b001/
cat >$WORK/b001/importcfg << 'EOF' # internal
# import config
packagefile os=/root/.cache/go-build/aa/aa-d
EOF
cd /tmp/probe
/go/pkg/tool/linux_amd64/compile -o $WORK/b001/_pkg_.a -trimpath "/tmp/probe=>kode_gopher_user;$WORK/b001=>" -p main -lang=go1.26 -complete -buildid KbTT/KbTT -goversion go1.26.8 -c=2 -nolocalimports -importcfg $WORK/b001/importcfg -pack ./main.go
cat >$WORK/b001/importcfg.link << 'EOF' # internal
packagefile kode_gopher_user=$WORK/b001/_pkg_.a
modinfo "0w\xaf\f\x92t\b\x02A\xe1\xc1\a\xe6\xd6\x18\xe6path\tkode_gopher_user\nmod\tkode_gopher_user\t(devel)\t\nbuild\t-buildmode=exe\nbuild\t-trimpath=true\n\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2"
EOF
mkdir -p $WORK/b001/exe/
cd .
GOROOT='' /go/pkg/tool/linux_amd64/link -o $WORK/b001/exe/a.out -importcfg $WORK/b001/importcfg.link -buildmode=exe -buildid=gr/Kb/Kb/gr -s -w -extld=gcc $WORK/b001/_pkg_.a
`

func TestParseProbe(t *testing.T) {
	var d Data
	if err := parseProbe(&d, probeOutput); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want any) {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	check("compile", d.CompileFlags, []string{"-lang=go1.26", "-complete", "-goversion", "go1.26.8", "-nolocalimports"})
	check("link", d.LinkFlags, []string{"-buildmode=exe", "-s", "-w", "-extld=gcc"})
	check("link env", d.LinkEnv, []string{"GOROOT="})
	check("head", d.ModinfoHead, []string{"path\tkode_gopher_user", "mod\tkode_gopher_user\t(devel)\t"})
	check("build", d.ModinfoBuild, []string{"build\t-buildmode=exe", "build\t-trimpath=true"})
	check("start", len(d.ModinfoStart), modinfoMarkerLen)
	check("end", d.ModinfoEnd, "\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2")
}

func TestParseProbeRefusesWhatItCannotVary(t *testing.T) {
	withDep := strings.Replace(probeOutput, `\nbuild\t-buildmode`, `\ndep\tex.com/m\tv1\th1:x=\nbuild\t-buildmode`, 1)
	if err := parseProbe(&Data{}, withDep); err == nil || !strings.Contains(err.Error(), `"dep"`) {
		t.Errorf("a dep line in the probe: %v", err)
	}
	noLink := strings.Replace(probeOutput, "/link -o", "/lnk -o", 1)
	if err := parseProbe(&Data{}, noLink); err == nil {
		t.Error("no link command: no error")
	}
}

func TestSplitShellWords(t *testing.T) {
	got, err := splitShellWords(`GOROOT='' a -x "b c\"d" -ldflags='-s -w' e\ f`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GOROOT=", "a", "-x", `b c"d`, "-ldflags=-s -w", "e f"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{`a 'b`, `a "b`} {
		if _, err := splitShellWords(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
