// tilec --list names every library kernel with its parameters as the DSL spells them, and
// under each a --spec it compiles with; every listed --spec is accepted by --kernel (the
// list, the --spec grammar and the library agree).
// RUN: tilec --list | FileCheck %s
// RUN: tilec --list | awk '/^[a-z]/ { sub(/\(.*/, ""); name = $0 } /^ +--spec=/ { sub(/^ +--spec=/, ""); print name, $0 }' > %t.specs
// RUN: FileCheck %s --check-prefix=SPECS < %t.specs
// RUN: while read name spec; do tilec --kernel=$name --spec=$spec --stage=tile > /dev/null || echo "REJECTED $name $spec"; done < %t.specs | FileCheck %s --check-prefix=TRACED --allow-empty

// CHECK: {{^}}vector_add(Ptr<f32> x, Ptr<f32> y, Ptr<f32> z, I32 n, Const<int> BLOCK){{$}}
// CHECK-NEXT: {{^}}    --spec=w4,p16,p16,p16,i16,c1024{{$}}
// CHECK: {{^}}softmax(Ptr<f32> {{.*}}, Const<int> {{.*}}){{$}}
// CHECK-NEXT: {{^}}    --spec=w{{[0-9]+}},p16,p16,
// SPECS: {{^}}vector_add w4,p16,p16,p16,i16,c1024{{$}}
// SPECS: {{^}}softmax w
// TRACED-NOT: {{.}}
