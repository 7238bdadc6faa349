;; DepthScan (balance.ts) in WebAssembly: the same state machine as the
;; JavaScript it replaced (test/pdf/watermark/depth-scan-oracle.ts, which the
;; tests hold it to), with what cannot count stepped over 16 bytes at a time
;; (SIMD). Content comes in pieces of at most `room` bytes, each put at
;; `input` (16 spare bytes after it, as the SIMD loads read past its end) and
;; scanned by `push`; `finish` ends the content. Memory: the byte classes at
;; 0; at CARRY, a short token cut off at the end of the last piece, which the
;; next piece may go on (it is scanned again in front of it); the open arrays
;; and dictionaries at `stack` (1 `]`, 2 `>>`, innermost last), the memory
;; growing when they pass its end.
(module
  (memory (export "memory") 2)
  ;; Byte classes: 0 regular, 1 white space, 2 delimiter.
  (data (i32.const 0)
    "\01\00\00\00\00\00\00\00\00\01\01\00\01\01\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\01\00\00\00\00\02\00\00\02\02\00\00\00\00\00\02"
    "\00\00\00\00\00\00\00\00\00\00\00\00\02\00\02\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\02\00\02\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00"
    "\00\00\00\00\00\00\00\00\00\00\00\02\00\02\00\00")

  (global $IN (export "input") i32 (i32.const 1024))
  (global $CARRY i32 (i32.const 256))
  (global (export "room") i32 (i32.const 65536))
  (global $STACK (export "stack") i32 (i32.const 67584))

  ;; Modes: 0 none, 1 comment, 2 string, 3 hex string, 4 inline image, 5 the rest of a long token.
  (global $depth (export "depth") (mut i32) (i32.const 0))
  (global $min (export "min") (mut i32) (i32.const 0))
  (global $mode (export "mode") (mut i32) (i32.const 0))
  (global $nesting (export "nesting") (mut i32) (i32.const 0))
  (global $escaped (mut i32) (i32.const 0))
  (global $imageEnd (export "imageEnd") (mut i32) (i32.const 0))
  (global $open (export "open") (mut i32) (i32.const 0))
  ;; The byte before what is scanned next (whether its first byte starts a token), and how many bytes are at CARRY.
  (global $before (mut i32) (i32.const 0x20))
  (global $carried (mut i32) (i32.const 0))

  (func $class (param $i i32) (result i32)
    (i32.load8_u (i32.load8_u (local.get $i))))

  ;; Past the regular bytes from $i (at most $n).
  (func $skipRegular (param $i i32) (param $n i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (br_if $done (call $class (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $i))

  ;; The first byte from $i that is not plain (q Q I ( % / < [), or $n: 16 bytes a step, by nibble tables
  ;; (a byte's high nibble and its low nibble each select the set of stops it may be; both agree on at most one).
  ;; Reading past $n is harmless: the piece's room in memory has 16 bytes to spare, and the bits past $n are dropped.
  (func $skipPlain (param $i i32) (param $n i32) (result i32)
    (local $v v128) (local $mask i32)
    (loop $next
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (local.get $n))))
      (local.set $v (v128.load (local.get $i)))
      (local.set $mask
        (i32.xor (i32.const 0xffff)
          (i8x16.bitmask
            (i8x16.eq
              (v128.and
                (i8x16.swizzle
                  (v128.const i8x16 0 3 0 0 0 16 0 0 8 4 0 128 64 0 0 32)
                  (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
                (i8x16.swizzle
                  (v128.const i8x16 0 0 56 64 4 130 0 1 0 0 0 0 0 0 0 0)
                  (i8x16.shr_u (local.get $v) (i32.const 4))))
              (v128.const i64x2 0 0)))))
      (if (i32.lt_u (i32.sub (local.get $n) (local.get $i)) (i32.const 16))
        (then (local.set $mask (i32.and (local.get $mask)
          (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $n) (local.get $i))) (i32.const 1))))))
      (if (local.get $mask)
        (then (return (i32.add (local.get $i) (i32.ctz (local.get $mask))))))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $next))
    (local.get $n))

  ;; The first of $a, $b or $c from $i, or $n (16 bytes a step; as skipPlain, reading past $n is harmless).
  (func $find3 (param $i i32) (param $n i32) (param $a i32) (param $b i32) (param $c i32) (result i32)
    (local $v v128) (local $mask i32)
    (loop $next
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (local.get $n))))
      (local.set $v (v128.load (local.get $i)))
      (local.set $mask
        (i8x16.bitmask
          (v128.or
            (v128.or
              (i8x16.eq (local.get $v) (i8x16.splat (local.get $a)))
              (i8x16.eq (local.get $v) (i8x16.splat (local.get $b))))
            (i8x16.eq (local.get $v) (i8x16.splat (local.get $c))))))
      (if (i32.lt_u (i32.sub (local.get $n) (local.get $i)) (i32.const 16))
        (then (local.set $mask (i32.and (local.get $mask)
          (i32.sub (i32.shl (i32.const 1) (i32.sub (local.get $n) (local.get $i))) (i32.const 1))))))
      (if (local.get $mask)
        (then (return (i32.add (local.get $i) (i32.ctz (local.get $mask))))))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $next))
    (local.get $n))

  ;; Numbers, true, false and null are operands; any other bare token is an operator.
  (func $isOperand (param $start i32) (param $length i32) (result i32)
    (local $c i32)
    (local.set $c (i32.load8_u (local.get $start)))
    (if (i32.or
          (i32.le_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 9))
          (i32.or (i32.eq (local.get $c) (i32.const 0x2b))
            (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.eq (local.get $c) (i32.const 0x2e)))))
      (then (return (i32.const 1))))
    (if (i32.eq (local.get $length) (i32.const 4))
      (then (return (i32.or
        (i32.eq (i32.load (local.get $start)) (i32.const 0x65757274))   ;; true
        (i32.eq (i32.load (local.get $start)) (i32.const 0x6c6c756e)))))) ;; null
    (if (i32.eq (local.get $length) (i32.const 5))
      (then (return (i32.and
        (i32.eq (i32.load (local.get $start)) (i32.const 0x736c6166))    ;; fals
        (i32.eq (i32.load8_u offset=4 (local.get $start)) (i32.const 0x65)))))) ;; e
    (i32.const 0))

  ;; An operator inside an "array": the array was never one (readers recover there), and all that is open is dropped.
  (func $token (param $start i32) (param $length i32)
    (if (global.get $open)
      (then (if (i32.eqz (call $isOperand (local.get $start) (local.get $length)))
        (then (global.set $open (i32.const 0)))))))

  (func $push (param $kind i32)
    (local $at i32)
    (local.set $at (i32.add (global.get $STACK) (global.get $open)))
    (if (i32.ge_u (local.get $at) (i32.shl (memory.size) (i32.const 16)))
      (then (if (i32.lt_s (memory.grow (i32.const 1)) (i32.const 0)) (then (unreachable)))))
    (i32.store8 (local.get $at) (local.get $kind))
    (global.set $open (i32.add (global.get $open) (i32.const 1))))

  (func $popIf (param $kind i32)
    (if (global.get $open)
      (then (if (i32.eq (i32.load8_u (i32.sub (i32.add (global.get $STACK) (global.get $open)) (i32.const 1))) (local.get $kind))
        (then (global.set $open (i32.sub (global.get $open) (i32.const 1))))))))

  ;; Steps over the construct the scan is inside of ($mode) from $i: where it ends ($mode then 0), or $n.
  (func $inside (param $i i32) (param $n i32) (result i32)
    (local $mode i32) (local $d i32) (local $nesting i32) (local $e i32)
    (local.set $mode (global.get $mode))
    (if (i32.eq (local.get $mode) (i32.const 2))
      (then
        (local.set $nesting (global.get $nesting))
        (if (i32.and (global.get $escaped) (i32.lt_u (local.get $i) (local.get $n)))
          (then
            (global.set $escaped (i32.const 0))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))))
        (block $out
          (loop $next
            (br_if $out (i32.eqz (local.get $nesting)))
            (local.set $i (call $find3 (local.get $i) (local.get $n) (i32.const 0x5c) (i32.const 0x28) (i32.const 0x29)))
            (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
            (local.set $d (i32.load8_u (local.get $i)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.eq (local.get $d) (i32.const 0x5c))
              (then
                (if (i32.lt_u (local.get $i) (local.get $n))
                  (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
                  (else (global.set $escaped (i32.const 1)))))
              (else (if (i32.eq (local.get $d) (i32.const 0x28))
                (then (local.set $nesting (i32.add (local.get $nesting) (i32.const 1))))
                (else (local.set $nesting (i32.sub (local.get $nesting) (i32.const 1)))))))
            (br $next)))
        (global.set $nesting (local.get $nesting))
        (if (i32.eqz (local.get $nesting)) (then (global.set $mode (i32.const 0))))
        (return (local.get $i))))
    (if (i32.eq (local.get $mode) (i32.const 3))
      (then
        (local.set $i (call $find3 (local.get $i) (local.get $n) (i32.const 0x3e) (i32.const 0x3e) (i32.const 0x3e)))
        (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (local.get $n))))
        (global.set $mode (i32.const 0))
        (return (i32.add (local.get $i) (i32.const 1)))))
    (if (i32.eq (local.get $mode) (i32.const 1))
      (then
        (local.set $i (call $find3 (local.get $i) (local.get $n) (i32.const 0x0a) (i32.const 0x0d) (i32.const 0x0d)))
        (if (i32.lt_u (local.get $i) (local.get $n)) (then (global.set $mode (i32.const 0))))
        (return (local.get $i))))
    (if (i32.eq (local.get $mode) (i32.const 5))
      (then
        (local.set $i (call $skipRegular (local.get $i) (local.get $n)))
        (if (i32.lt_u (local.get $i) (local.get $n)) (then (global.set $mode (i32.const 0))))
        (return (local.get $i))))
    ;; Inline image data: binary until white space, `EI`, then white space or a delimiter (or the end), perhaps
    ;; across pieces. $imageEnd: the last piece ended with white space and `E` (1), or white space, `E` and `I` (2).
    (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (local.get $n))))
    (if (i32.eq (global.get $imageEnd) (i32.const 1))
      (then
        (global.set $imageEnd (i32.const 0))
        (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x49))
          (then (return (call $inside (local.get $i) (local.get $n)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (global.set $imageEnd (i32.const 2))
        (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (local.get $n))))))
    (if (i32.eq (global.get $imageEnd) (i32.const 2))
      (then
        (global.set $imageEnd (i32.const 0))
        (if (call $class (local.get $i))
          (then
            (global.set $mode (i32.const 0))
            (return (local.get $i))))))
    (loop $next
      (local.set $e (call $find3 (local.get $i) (local.get $n) (i32.const 0x45) (i32.const 0x45) (i32.const 0x45)))
      (if (i32.ge_u (local.get $e) (local.get $n)) (then (return (local.get $n))))
      (local.set $i (i32.add (local.get $e) (i32.const 1)))
      (br_if $next (i32.ne (call $class (i32.sub (local.get $e) (i32.const 1))) (i32.const 1)))
      (if (i32.ge_u (local.get $i) (local.get $n))
        (then
          (global.set $imageEnd (i32.const 1))
          (return (local.get $n))))
      (br_if $next (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x49)))
      (if (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n))
        (then
          (global.set $imageEnd (i32.const 2))
          (return (local.get $n))))
      (br_if $next (i32.eqz (call $class (i32.add (local.get $i) (i32.const 1)))))
      (global.set $mode (i32.const 0))
      (return (i32.add (local.get $i) (i32.const 1))))
    (local.get $n))

  ;; Scans from $from to $n (the byte before $from is set to $before); $last: nothing follows. Returns where it
  ;; stopped: $n, or the start of a short token that may go on in the next piece (a number or an operator of fewer
  ;; than 8 bytes, a `<` or `>`), unless $last. From 8 bytes on a token can only be one that does not count, so its
  ;; rest is stepped over instead (mode 5): what is carried stays a few bytes.
  (func $scan (param $from i32) (param $n i32) (param $last i32) (result i32)
    (local $i i32) (local $start i32) (local $c i32) (local $kind i32) (local $tokenLength i32)
    (i32.store8 (i32.sub (local.get $from) (i32.const 1)) (global.get $before))
    (local.set $i (local.get $from))
    (if (global.get $mode) (then (local.set $i (call $inside (local.get $i) (local.get $n)))))
    (block $end
      (loop $next
        (br_if $end (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.eqz (global.get $open))
          (then
            ;; Outside arrays and dictionaries only the bytes that may start a q, Q, ID, string, comment, name,
            ;; array or dictionary matter: the rest is stepped over 16 bytes at a time.
            (local.set $i (call $skipPlain (local.get $i) (local.get $n)))
            (br_if $end (i32.ge_u (local.get $i) (local.get $n)))
            ;; A q, Q or I inside a longer token (`BI`, an unknown operator) is not one: step over that token.
            (if (i32.eqz (i32.or (call $class (local.get $i)) (call $class (i32.sub (local.get $i) (i32.const 1)))))
              (then
                (local.set $i (call $skipRegular (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
                (br $next)))))
        (local.set $start (local.get $i))
        (local.set $c (i32.load8_u (local.get $i)))
        (local.set $kind (call $class (local.get $i)))
        (if (i32.eqz (local.get $kind))
          (then
            ;; A number or an operator.
            (local.set $i (call $skipRegular (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
            (local.set $tokenLength (i32.sub (local.get $i) (local.get $start)))
            (if (i32.and (i32.ge_u (local.get $i) (local.get $n)) (i32.eqz (local.get $last)))
              (then
                (if (i32.lt_u (local.get $tokenLength) (i32.const 8))
                  (then (return (call $stopped (local.get $from) (local.get $start)))))
                (call $token (local.get $start) (local.get $tokenLength))
                (global.set $mode (i32.const 5))
                (br $next)))
            (if (i32.eq (local.get $tokenLength) (i32.const 1))
              (then
                (if (i32.eq (local.get $c) (i32.const 0x71))
                  (then
                    (global.set $depth (i32.add (global.get $depth) (i32.const 1)))
                    (br $next)))
                (if (i32.eq (local.get $c) (i32.const 0x51))
                  (then
                    (global.set $depth (i32.sub (global.get $depth) (i32.const 1)))
                    (if (i32.lt_s (global.get $depth) (global.get $min)) (then (global.set $min (global.get $depth))))
                    (br $next)))
                (call $token (local.get $start) (local.get $tokenLength))
                (br $next)))
            (if (i32.and (i32.eq (local.get $tokenLength) (i32.const 2))
                  (i32.eq (i32.load16_u (local.get $start)) (i32.const 0x4449))) ;; ID
              (then
                ;; Inline image data follows the one white space byte after `ID`.
                (global.set $mode (i32.const 4))
                (global.set $imageEnd (i32.const 0))
                (local.set $i (call $inside (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
                (br $next)))
            (call $token (local.get $start) (local.get $tokenLength))
            (br $next)))
        (if (i32.eq (local.get $kind) (i32.const 1))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        ;; `<` and `>` look one byte ahead (`<<`, `>>`).
        (if (i32.and (i32.eqz (local.get $last))
              (i32.and (i32.eq (i32.or (local.get $c) (i32.const 2)) (i32.const 0x3e))
                (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n))))
          (then (return (call $stopped (local.get $from) (local.get $start)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (i32.eq (local.get $c) (i32.const 0x28))
          (then
            (global.set $mode (i32.const 2))
            (global.set $nesting (i32.const 1))
            (local.set $i (call $inside (local.get $i) (local.get $n)))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 0x3c))
          (then
            (if (i32.and (i32.lt_u (local.get $i) (local.get $n)) (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x3c)))
              (then
                (call $push (i32.const 2))
                (local.set $i (i32.add (local.get $i) (i32.const 1))))
              (else
                (global.set $mode (i32.const 3))
                (local.set $i (call $inside (local.get $i) (local.get $n)))))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 0x2f))
          (then
            ;; A name never counts: its rest may go on in the next piece.
            (local.set $i (call $skipRegular (local.get $i) (local.get $n)))
            (if (i32.and (i32.ge_u (local.get $i) (local.get $n)) (i32.eqz (local.get $last)))
              (then (global.set $mode (i32.const 5))))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 0x25))
          (then
            (global.set $mode (i32.const 1))
            (local.set $i (call $inside (local.get $i) (local.get $n)))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 0x3e))
          (then
            (if (i32.and (i32.lt_u (local.get $i) (local.get $n)) (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x3e)))
              (then
                (call $popIf (i32.const 2))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 0x5b))
          (then
            (call $push (i32.const 1))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 0x5d))
          (then (call $popIf (i32.const 1))))
        (br $next)))
    (call $stopped (local.get $from) (local.get $n)))

  ;; $at, after keeping the byte before it as $before (what was scanned from $from).
  (func $stopped (param $from i32) (param $at i32) (result i32)
    (if (i32.gt_u (local.get $at) (local.get $from))
      (then (global.set $before (i32.load8_u (i32.sub (local.get $at) (i32.const 1))))))
    (local.get $at))

  ;; Scans the $length bytes at `input`, after what was carried from the last piece; what it leaves (a short token
  ;; that may go on) is kept at CARRY.
  (func (export "push") (param $length i32)
    (local $from i32) (local $n i32) (local $at i32)
    (local.set $from (i32.sub (global.get $IN) (global.get $carried)))
    (memory.copy (local.get $from) (global.get $CARRY) (global.get $carried))
    (local.set $n (i32.add (global.get $IN) (local.get $length)))
    (local.set $at (call $scan (local.get $from) (local.get $n) (i32.const 0)))
    (global.set $carried (i32.sub (local.get $n) (local.get $at)))
    (memory.copy (global.get $CARRY) (local.get $at) (global.get $carried)))

  ;; The end of the content: what was carried is scanned as its last bytes.
  (func (export "finish")
    (memory.copy (global.get $IN) (global.get $CARRY) (global.get $carried))
    (drop (call $scan (global.get $IN) (i32.add (global.get $IN) (global.get $carried)) (i32.const 1)))
    (global.set $carried (i32.const 0)))

  ;; A new scan (the byte before the content taken for a space).
  (func (export "reset")
    (global.set $depth (i32.const 0))
    (global.set $min (i32.const 0))
    (global.set $mode (i32.const 0))
    (global.set $nesting (i32.const 0))
    (global.set $escaped (i32.const 0))
    (global.set $imageEnd (i32.const 0))
    (global.set $open (i32.const 0))
    (global.set $before (i32.const 0x20))
    (global.set $carried (i32.const 0)))
)
