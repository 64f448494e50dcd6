;; Counts the identifiers of one text for the map's references (identifiers.ts: referencesIn). `npm run build:wasm`
;; assembles it into countWordsWasm.ts. In WebAssembly because it reads every byte of every source
;; file on the map's main thread: about 2.3 times as fast as the same loop in JavaScript on the map
;; bench's corpus.
;;
;; Memory, laid out by the caller: bytes 0 to 255 give each byte's kind (0: neither, 1: starts an
;; identifier, 2: a digit); the text; a record of four i32 per distinct word (start in the text,
;; length, count, hash); an open-addressing table of i32 entry numbers (-1: empty), at most half full.
(module
  (memory (export "memory") 1)

  ;; Murmur3's finaliser, as identifiers.ts's `mixed`.
  (func $mixed (param $h i32) (result i32)
    (local.set $h (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))))
    (local.set $h (i32.mul (local.get $h) (i32.const 0x85ebca6b)))
    (local.set $h (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 13))))
    (local.set $h (i32.mul (local.get $h) (i32.const 0xc2b2ae35)))
    (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))))

  ;; The address of a table slot.
  (func $slotAt (param $tab i32) (param $slot i32) (result i32)
    (i32.add (local.get $tab) (i32.shl (local.get $slot) (i32.const 2))))

  ;; Counts the words of memory[$in, $in + $len) into records at $words (room for $wordsCap), hashed
  ;; in a table at $tab of $size slots (room for $tabCap). The number of distinct words, or -1 when
  ;; they need more room than given.
  (func (export "count")
    (param $in i32) (param $len i32) (param $words i32) (param $wordsCap i32) (param $tab i32) (param $size i32) (param $tabCap i32)
    (result i32)
    (local $i i32) (local $end i32) (local $c i32) (local $kind i32) (local $start i32) (local $h i32)
    (local $length i32) (local $mask i32) (local $slot i32) (local $entry i32) (local $rec i32)
    (local $distinct i32) (local $k i32) (local $at i32)
    (local.set $end (i32.add (local.get $in) (local.get $len)))
    (local.set $i (local.get $in))
    (local.set $mask (i32.sub (local.get $size) (i32.const 1)))
    (memory.fill (local.get $tab) (i32.const 255) (i32.shl (local.get $size) (i32.const 2)))
    (block $done
      (loop $scan
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $i)))
        (local.set $kind (i32.load8_u (local.get $c)))
        (if (i32.ne (local.get $kind) (i32.const 1))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            ;; A number's digits and letters are not an identifier (0x1F, 10px).
            (if (i32.eq (local.get $kind) (i32.const 2))
              (then
                (block $number
                  (loop $digits
                    (br_if $number (i32.ge_u (local.get $i) (local.get $end)))
                    (br_if $number (i32.eqz (i32.load8_u (i32.load8_u (local.get $i)))))
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $digits)))))
            (br $scan)))
        ;; A word: its hash as identifiers.ts's `wordHash` takes it.
        (local.set $start (local.get $i))
        (local.set $h (local.get $c))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (block $word
          (loop $part
            (br_if $word (i32.ge_u (local.get $i) (local.get $end)))
            (local.set $c (i32.load8_u (local.get $i)))
            (br_if $word (i32.eqz (i32.load8_u (local.get $c))))
            (local.set $h (i32.add (i32.mul (local.get $h) (i32.const 31)) (local.get $c)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $part)))
        (local.set $length (i32.sub (local.get $i) (local.get $start)))
        (br_if $scan (i32.lt_u (local.get $length) (i32.const 2)))
        (local.set $h (call $mixed (local.get $h)))
        (local.set $slot (i32.and (local.get $h) (local.get $mask)))
        (block $counted
          (loop $probe
            (local.set $entry (i32.load (call $slotAt (local.get $tab) (local.get $slot))))
            (if (i32.lt_s (local.get $entry) (i32.const 0))
              (then
                ;; A new word: its record, then its slot; the table doubles when half full.
                (if (i32.eq (local.get $distinct) (local.get $wordsCap)) (then (return (i32.const -1))))
                (local.set $rec (i32.add (local.get $words) (i32.shl (local.get $distinct) (i32.const 4))))
                (i32.store (local.get $rec) (i32.sub (local.get $start) (local.get $in)))
                (i32.store offset=4 (local.get $rec) (local.get $length))
                (i32.store offset=8 (local.get $rec) (i32.const 1))
                (i32.store offset=12 (local.get $rec) (local.get $h))
                (i32.store (call $slotAt (local.get $tab) (local.get $slot)) (local.get $distinct))
                (local.set $distinct (i32.add (local.get $distinct) (i32.const 1)))
                (if (i32.gt_u (i32.shl (local.get $distinct) (i32.const 1)) (local.get $size))
                  (then
                    (local.set $size (i32.shl (local.get $size) (i32.const 1)))
                    (if (i32.gt_u (local.get $size) (local.get $tabCap)) (then (return (i32.const -1))))
                    (local.set $mask (i32.sub (local.get $size) (i32.const 1)))
                    (memory.fill (local.get $tab) (i32.const 255) (i32.shl (local.get $size) (i32.const 2)))
                    (local.set $k (i32.const 0))
                    (loop $rehash
                      (local.set $slot (i32.and (i32.load offset=12 (i32.add (local.get $words) (i32.shl (local.get $k) (i32.const 4)))) (local.get $mask)))
                      (block $free
                        (loop $seek
                          (br_if $free (i32.lt_s (i32.load (call $slotAt (local.get $tab) (local.get $slot))) (i32.const 0)))
                          (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (local.get $mask)))
                          (br $seek)))
                      (i32.store (call $slotAt (local.get $tab) (local.get $slot)) (local.get $k))
                      (local.set $k (i32.add (local.get $k) (i32.const 1)))
                      (br_if $rehash (i32.lt_u (local.get $k) (local.get $distinct))))))
                (br $counted)))
            ;; A word seen before: the same hash, length and bytes.
            (local.set $rec (i32.add (local.get $words) (i32.shl (local.get $entry) (i32.const 4))))
            (if (i32.and
                  (i32.eq (i32.load offset=12 (local.get $rec)) (local.get $h))
                  (i32.eq (i32.load offset=4 (local.get $rec)) (local.get $length)))
              (then
                (local.set $at (i32.add (local.get $in) (i32.load (local.get $rec))))
                (local.set $k (i32.const 0))
                (block $differ
                  (loop $compare
                    (br_if $differ (i32.ne
                      (i32.load8_u (i32.add (local.get $at) (local.get $k)))
                      (i32.load8_u (i32.add (local.get $start) (local.get $k)))))
                    (local.set $k (i32.add (local.get $k) (i32.const 1)))
                    (br_if $compare (i32.lt_u (local.get $k) (local.get $length)))))
                (if (i32.eq (local.get $k) (local.get $length))
                  (then
                    (i32.store offset=8 (local.get $rec) (i32.add (i32.load offset=8 (local.get $rec)) (i32.const 1)))
                    (br $counted)))))
            (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (local.get $mask)))
            (br $probe)))
        (br $scan)))
    (local.get $distinct)))
