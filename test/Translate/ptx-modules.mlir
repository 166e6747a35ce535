// A function of several kernel modules: ptxas takes one module a file, so
// --egg-to-ptx writes one module by name or each to a file of its own, and
// refuses to run them together.
// RUN: not egg-translate --egg-to-ptx %s 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: egg-translate --egg-to-ptx --egg-ptx-module=second %s | FileCheck %s --check-prefix=ONE
// RUN: not egg-translate --egg-to-ptx --egg-ptx-module=third %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: rm -rf %t && egg-translate --egg-to-ptx --egg-ptx-dir=%t %s | FileCheck %s --check-prefix=LIST
// RUN: FileCheck %s --check-prefix=FIRST --input-file=%t/first.ptx
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t/second.ptx

// SEVERAL: error: 2 kernel modules (first, second) and ptxas takes one a file: pick one with --egg-ptx-module=NAME or write each to a file with --egg-ptx-dir=DIR
// UNKNOWN: error: no kernel module named 'third' (--egg-ptx-module); the module has first, second
// LIST: first.ptx
// LIST-NEXT: second.ptx
// FIRST: // egg-ptx-module: first
// FIRST-NEXT: .version 8.0
// FIRST-NOT: .version
// ONE: // egg-ptx-module: second
// ONE-NEXT: .version 8.1
// ONE-NOT: .version
module attributes {gpu.container_module} {
  gpu.binary @first [#gpu.object<#nvvm.target, assembly = ".version 8.0\n.target sm_90a\n">]
  gpu.binary @second [#gpu.object<#nvvm.target, assembly = ".version 8.1\n.target sm_90a\n">]
}
