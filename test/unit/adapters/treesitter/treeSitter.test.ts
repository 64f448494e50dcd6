// What each tree-sitter language's parse makes of small snippets: qualified names, which change is
// which, and the shape of the rule tables. Real code from Debian's packages is in test/system/corpus/.
import * as assert from 'node:assert/strict';
import { SourceParser } from '../../../../src/adapters/sourceParser';
import { LANGUAGES } from '../../../../src/adapters/treesitter/languages';
import { CONTAINER_KINDS, containerShape } from '../../../../src/core/drift/symbols';

describe('qualified names in each language', () => {
  const parser = new SourceParser();
  const names = async (file: string, text: string) => {
    await parser.prepare(file);
    return [...parser.parse(file, text).symbols.values()].map((symbol) => `${symbol.name} ${symbol.kind}`);
  };

  it('Python: classes, methods, nested classes; a decorator is part of the signature, a docstring of the body', async () => {
    const text = 'class User:\n    """A user."""\n    @cached\n    def save(self, db):\n        """Saves."""\n        return db.put(self)\n\n    class Meta:\n        def table(self):\n            return "users"\n';
    assert.deepEqual(await names('m.py', text), ['User class', 'User.save method', 'User.Meta class', 'User.Meta.table method']);
    const base = parser.parse('m.py', text).get('User.save')!;
    const decorated = parser.parse('m.py', text.replace('@cached', '@cached(1)')).get('User.save')!;
    const documented = parser.parse('m.py', text.replace('"""Saves."""', '"""Saves it."""')).get('User.save')!;
    assert.notEqual(decorated.sig, base.sig);
    assert.equal(documented.sig, base.sig);
    assert.notEqual(documented.body, base.body);
  });

  it('Go: methods by receiver type, struct fields and interface methods as members', async () => {
    assert.deepEqual(await names('m.go', 'package m\ntype UUID [16]byte\nfunc (u *UUID) String() string { return "" }\ntype S struct {\n  A, B int\n}\ntype I interface {\n  Do() error\n}\n'),
      ['UUID type', 'UUID.String method', 'S struct', 'S.A property', 'S.B property', 'I interface', 'I.Do method']);
  });

  it('Rust: impl methods as Type.method, traits, nested modules; attributes belong to the signature', async () => {
    const text = 'mod outer {\n  pub mod inner {\n    pub fn f() {}\n  }\n}\npub struct P { x: i32 }\nimpl<T> Display for P {\n  #[inline]\n  fn fmt(&self) {}\n}\ntrait T { fn t(&self); }\n';
    assert.deepEqual(await names('m.rs', text), ['outer module', 'outer.inner module', 'outer.inner.f function', 'P struct', 'P.x property', 'P.fmt method', 'T trait', 'T.t method']);
    assert.notEqual(parser.parse('m.rs', text).get('P.fmt')!.sig, parser.parse('m.rs', text.replace('#[inline]', '#[inline(always)]')).get('P.fmt')!.sig);
  });

  it('Java and C#: nested classes, overloads merged into one symbol, annotations in the signature', async () => {
    assert.deepEqual(await names('A.java', 'class A {\n  static class B { void f() {} }\n  void g(int x) {}\n  void g(String s) {}\n}\n'), ['A class', 'A.B class', 'A.B.f method', 'A.g method']);
    assert.deepEqual(await names('A.cs', 'namespace N {\n  class A {\n    public int P { get; set; }\n    void F() {}\n  }\n}\n'), ['A class', 'A.P property', 'A.F method']);
  });

  it('Ruby, PHP, C and C++: modules and namespaces qualify, out-of-line methods join their class', async () => {
    assert.deepEqual(await names('m.rb', 'module Outer\n  class Inner\n    def fn; end\n  end\nend\n'), ['Outer module', 'Outer.Inner class', 'Outer.Inner.fn method']);
    assert.deepEqual(await names('m.php', '<?php\nclass A {\n  private $x = 1;\n  public function f() {}\n}\nfunction g() {}\n'), ['A class', 'A.x property', 'A.f method', 'g function']);
    assert.deepEqual(await names('m.c', 'struct point { int x; };\nint area(int w) { return w; }\nint proto(void);\n'), ['point struct', 'point.x property', 'area function', 'proto function']);
    assert.deepEqual(await names('m.cpp', 'namespace ns {\nclass Foo {\n  void bar();\n};\nvoid Foo::bar() {}\n}\n'), ['ns namespace', 'ns.Foo class', 'ns.Foo.bar method']);
  });
});

describe('what a change means in each language', () => {
  const parser = new SourceParser(false);
  const parse = async (file: string, text: string) => {
    await parser.prepare(file);
    return parser.parse(file, text);
  };
  /** What each symbol's anchor records (a container's shape in place of its body), to compare two versions of a file. */
  const prints = async (file: string, text: string, names: string[]) => {
    const parsed = await parse(file, text);
    return Object.fromEntries(names.map((name) => {
      const symbol = parsed.get(name);
      assert.ok(symbol, `${name} is a symbol of ${file}`);
      return [name, CONTAINER_KINDS.has(symbol.kind) ? { sig: symbol.sig, shape: containerShape(parsed, symbol) } : { sig: symbol.sig, body: symbol.body }];
    }));
  };
  const names = async (file: string, text: string) => [...(await parse(file, text)).symbols.values()].map((symbol) => `${symbol.name} ${symbol.kind}`);

  it('a formatter\'s trailing commas, line continuations and, in Python, quotes are no change; a new argument is', async () => {
    const before = 'class Repo:\n    def save(self, user_id: int, retries: int = 3, sep=\',\') -> None:\n        self.client.post(user_id, retries=retries, sep=\'x\')\n        return \\\n            None\n';
    const black = 'class Repo:\n    def save(\n        self,\n        user_id: int,\n        retries: int = 3,\n        sep=",",\n    ) -> None:\n        self.client.post(\n            user_id,\n            retries=retries,  # kept\n            sep="x",\n        )\n        return None\n';
    assert.deepEqual(await prints('m.py', black, ['Repo', 'Repo.save']), await prints('m.py', before, ['Repo', 'Repo.save']));
    const added = await prints('m.py', before.replace('retries=retries,', 'retries=retries, timeout=1,'), ['Repo.save']);
    assert.notEqual(added['Repo.save'].body, (await prints('m.py', before, ['Repo.save']))['Repo.save'].body);
    const php = '<?php\nclass Repo {\n  public function save(int $id, array $data) { return $this->db->put($id, $data); }\n}\n';
    const fixed = '<?php\nclass Repo {\n  public function save(\n    int $id,\n    array $data,\n  ) {\n    return $this->db->put(\n      $id,\n      $data,\n    );\n  }\n}\n';
    assert.deepEqual(await prints('m.php', fixed, ['Repo', 'Repo.save']), await prints('m.php', php, ['Repo', 'Repo.save']));
    const ruby = 'class Repo\n  def save(id)\n    db.put(id, { a: 1 })\n  end\nend\n';
    assert.deepEqual(await prints('m.rb', ruby.replace('db.put(id, { a: 1 })', 'db.put(\n      id,\n      { a: 1, },\n    )'), ['Repo.save']), await prints('m.rb', ruby, ['Repo.save']));
    // In Ruby, PHP and the C family the quotes say different things: a change of quotes is a change.
    assert.notEqual((await prints('m.rb', ruby.replace('{ a: 1 }', "'x'"), ['Repo.save']))['Repo.save'].body, (await prints('m.rb', ruby.replace('{ a: 1 }', '"x"'), ['Repo.save']))['Repo.save'].body);
  });

  it('overloads in another order are the same symbol; an overload whose body changed is not', async () => {
    const java = 'public class Parser {\n  public int parse(String s) { return Integer.parseInt(s); }\n  public int parse(char[] c) { return parse(new String(c)); }\n  public void reset() { }\n}\n';
    const lines = java.split('\n');
    const swapped = [lines[0], lines[2], lines[1], ...lines.slice(3)].join('\n');
    assert.deepEqual(await prints('P.java', swapped, ['Parser', 'Parser.parse']), await prints('P.java', java, ['Parser', 'Parser.parse']));
    const edited = await prints('P.java', java.replace('parseInt(s)', 'parseInt(s.trim())'), ['Parser', 'Parser.parse']);
    const original = await prints('P.java', java, ['Parser', 'Parser.parse']);
    assert.equal(edited['Parser.parse'].sig, original['Parser.parse'].sig);
    assert.notEqual(edited['Parser.parse'].body, original['Parser.parse'].body);
    assert.equal(edited.Parser.shape, original.Parser.shape);
  });

  it('Java: initializer blocks declare no members; fields, constants, annotation elements and record constructors do, a value being the body', async () => {
    const text = 'class A {\n  private int t = 30, u;\n  static { class Helper { void register() {} } run(new Runnable() { public void run() {} }); }\n  { Object o = new Object() { public String toString() { return ""; } }; }\n  public void run() {}\n  enum P { EARTH(5.9), MARS }\n}\ninterface L { int MAX = 100; }\n@interface Au { String value() default ""; }\nrecord R(int lo) { public R { if (lo < 0) throw new E(); } }\n';
    assert.deepEqual(await names('A.java', text), ['A class', 'A.t property', 'A.u property', 'A.run method', 'A.P enum', 'A.P.EARTH enum-member', 'A.P.MARS enum-member', 'L interface', 'L.MAX property', 'Au interface', 'Au.value method', 'R class', 'R.R constructor']);
    const before = await prints('A.java', text, ['A', 'A.t', 'A.P', 'A.P.EARTH', 'L', 'L.MAX', 'A.run']);
    const after = await prints('A.java', text.replace('t = 30', 't = 60').replace('EARTH(5.9)', 'EARTH(5.97)').replace('MAX = 100', 'MAX = 500').replace('public void run() {}', 'public void run() {}').replace('toString() { return ""; }', 'toString() { return "x"; }'), ['A', 'A.t', 'A.P', 'A.P.EARTH', 'L', 'L.MAX', 'A.run']);
    for (const value of ['A.t', 'A.P.EARTH', 'L.MAX']) {
      assert.equal(after[value].sig, before[value].sig, `${value}: the same signature`);
      assert.notEqual(after[value].body, before[value].body, `${value}: a new value is its body`);
    }
    for (const container of ['A', 'A.P', 'L']) assert.equal(after[container].shape, before[container].shape, `${container}: a member's value is not its shape`);
    assert.deepEqual(after['A.run'], before['A.run'], 'an anonymous class\'s run() in an initializer is not A.run');
    assert.notEqual((await prints('A.java', text.replace('String value() default "";', 'String value() default ""; int level() default 1;'), ['Au'])).Au.shape, (await prints('A.java', text, ['Au'])).Au.shape);
  });

  it('C#: #region is skipped; an auto-property\'s accessors are its signature, its initializer its body; events, indexers, operators, finalizers and delegates are members', async () => {
    const text = 'public delegate void D(int x);\npublic class A {\n  private int _t = 30, _u;\n  public int P { get; private set; } = 5;\n  public int Q { get { return 1; } set { } }\n  public event System.EventHandler Changed;\n  public int this[int i] => i;\n  public static A operator +(A a, A b) => a;\n  public static implicit operator int(A a) => 1;\n  ~A() { }\n  void M() {\n    int t = 1;\n  }\n}\n';
    assert.deepEqual(await names('A.cs', text), ['D type', 'A class', 'A._t property', 'A._u property', 'A.P property', 'A.Q property', 'A.Changed property', 'A.this property', 'A.operator+ method', 'A.implicitoperatorint method', 'A.~A method', 'A.M method']);
    const before = await prints('A.cs', text, ['A', 'A._t', 'A.P', 'A.M']);
    const region = await prints('A.cs', text.replace('    int t = 1;\n', '    #region compute\n    int t = 1;\n    #endregion\n'), ['A', 'A.M']);
    assert.deepEqual(region, { A: before.A, 'A.M': before['A.M'] }, '#region is like a comment');
    const values = await prints('A.cs', text.replace('_t = 30', '_t = 60').replace('} = 5;', '} = 6;'), ['A', 'A._t', 'A.P']);
    assert.equal(values.A.shape, before.A.shape, 'values are not the shape');
    assert.notEqual(values['A._t'].body, before['A._t'].body);
    assert.notEqual(values['A.P'].body, before['A.P'].body);
    const setter = await prints('A.cs', text.replace('private set;', 'set;'), ['A', 'A.P']);
    assert.notEqual(setter['A.P'].sig, before['A.P'].sig, 'a public setter is a new signature');
    assert.notEqual(setter.A.shape, before.A.shape);
  });

  it('Python and Ruby: module and class level assignments are symbols; a field added to a dataclass changes its shape', async () => {
    const py = 'MAX_RETRIES = 3\na, b = 1, 2\n@dataclass\nclass Point:\n    x: int = 0\n    y: int\n    def norm(self):\n        z = 1\n        return self.x + z\n';
    assert.deepEqual(await names('m.py', py), ['MAX_RETRIES variable', 'a variable', 'b variable', 'Point class', 'Point.x variable', 'Point.y variable', 'Point.norm method']);
    const before = await prints('m.py', py, ['MAX_RETRIES', 'Point', 'Point.x']);
    const after = await prints('m.py', py.replace('MAX_RETRIES = 3', 'MAX_RETRIES = 5').replace('x: int = 0', 'x: int = 1'), ['MAX_RETRIES', 'Point', 'Point.x']);
    assert.equal(after.MAX_RETRIES.sig, before.MAX_RETRIES.sig);
    assert.notEqual(after.MAX_RETRIES.body, before.MAX_RETRIES.body);
    assert.equal(after.Point.shape, before.Point.shape, 'a default value is not the shape');
    assert.notEqual((await prints('m.py', py.replace('    y: int\n', '    y: int\n    z: int = 0\n'), ['Point'])).Point.shape, before.Point.shape);
    assert.deepEqual(await names('m.rb', 'class Invoice\n  TAX = 0.2\n  rate = 1\n  def <=>(other)\n    total <=> other.total\n  end\nend\nPoint = Struct.new(:x) do\n  def norm\n    x\n  end\nend\n'), ['Invoice class', 'Invoice.TAX variable', 'Invoice.<=> method', 'Point class', 'Point.norm method']);
  });

  it('Python statements, C# #if regions and Rust macros: what is read of them one by one, and what never, finds what searching them whole found', async () => {
    const py = 'CONFIG = dict(\n    a=1,\n)\n"""A docstring."""\nsetup(name="x", build=lambda: 1)\nA = B = 1\nif TYPE_CHECKING:\n    Alias = int\n';
    assert.deepEqual(await names('m.py', py), ['CONFIG variable', 'A variable', 'Alias variable']);
    const cs = '#if DEBUG\npublic class Debugging { public void Trace() {} }\n#elif TRACE\npublic class Tracing {}\n#else\npublic class Release {}\n#endif\n';
    assert.deepEqual(await names('m.cs', cs), ['Debugging class', 'Debugging.Trace method', 'Tracing class', 'Release class']);
    const rs = 'macro_rules! make {\n    () => { fn made() {} };\n}\nmake!();\nlazy_static! { static ref X: u8 = 1; }\nfn real() {}\n';
    assert.deepEqual(await names('m.rs', rs), ['real function']);
  });

  it('Go and Rust: embedded fields, every name of a spec, aliases, unions and associated types are members; a comment between an attribute and its item is none', async () => {
    const go = 'package m\ntype Server struct {\n  sync.Mutex\n  *Base\n  addr string\n}\nvar x, y = 1, 2\ntype Alias = map[string]int\n';
    assert.deepEqual(await names('m.go', go), ['Server struct', 'Server.Mutex property', 'Server.Base property', 'Server.addr property', 'x variable', 'y variable', 'Alias type']);
    assert.notEqual((await prints('m.go', go.replace('sync.Mutex', 'http.Handler'), ['Server'])).Server.shape, (await prints('m.go', go, ['Server'])).Server.shape);
    const iface = 'package m\ntype RC interface {\n  io.Reader\n  Close() error\n}\ntype Number interface {\n  ~int | ~float64\n}\n';
    assert.deepEqual(await names('m.go', iface), ['RC interface', 'RC.Reader type', 'RC.Close method', 'Number interface', 'Number.~int|~float64 type']);
    const embeds = await prints('m.go', iface, ['RC', 'Number']);
    assert.notEqual((await prints('m.go', iface.replace('io.Reader', 'io.Writer'), ['RC'])).RC.shape, embeds.RC.shape);
    assert.notEqual((await prints('m.go', iface.replace('~int | ~float64', '~int'), ['Number'])).Number.shape, embeds.Number.shape);
    const rust = '#[derive(Debug)]\npub struct Point {\n    pub x: i32,\n}\npub struct Meters(pub f64);\npub union U { i: u32, f: f32 }\ntrait Iter { type Item; }\nimpl<\'a> Clone for &\'a Point { fn clone(&self) -> Self { *self } }\nimpl Default for crate::Meters { fn default() -> Self { Meters(0.0) } }\n';
    assert.deepEqual(await names('m.rs', rust), ['Point struct', 'Point.x property', 'Meters struct', 'U struct', 'U.i property', 'U.f property', 'Iter trait', 'Iter.Item type', 'Point.clone method', 'Meters.default method']);
    const before = await prints('m.rs', rust, ['Point', 'Meters', 'Iter']);
    assert.deepEqual(await prints('m.rs', rust.replace('#[derive(Debug)]\n', '#[derive(Debug)]\n/// A point.\n'), ['Point', 'Meters', 'Iter']), before);
    assert.notEqual((await prints('m.rs', rust.replace('Meters(pub f64)', 'Meters(pub f32)'), ['Meters'])).Meters.sig, before.Meters.sig);
    assert.notEqual((await prints('m.rs', rust.replace('type Item;', 'type Item; type Error;'), ['Iter'])).Iter.shape, before.Iter.shape);
  });

  it('C and C++: an initializer list is body, template parameters signature; globals, aliases, typedef\'d structs, every field of a line and functions returning references are symbols', async () => {
    const cpp = 'class S {\n  S(int p);\n  int x, y;\n  const std::string& name() const;\n  operator bool() const;\n};\nS::S(int p) : x(p), y(16) {}\nconst std::string& default_name();\nstatic int counter = 0;\nconstexpr int kMax = 3;\nusing Bytes = int;\ntypedef struct node { int a; } Node;\ntemplate <typename T> class St { void push(T v); };\n';
    assert.deepEqual(await names('m.cpp', cpp), ['S class', 'S.S method', 'S.x property', 'S.y property', 'S.name method', 'S.operatorbool method', 'default_name function', 'counter variable', 'kMax variable', 'Bytes type', 'Node struct', 'Node.a property', 'St class', 'St.push method']);
    const before = await prints('m.cpp', cpp, ['S', 'S.S', 'St', 'counter']);
    const after = await prints('m.cpp', cpp.replace('y(16)', 'y(128)').replace('counter = 0', 'counter = 1'), ['S', 'S.S', 'St', 'counter']);
    assert.equal(after.S.shape, before.S.shape, 'an initializer list is not the shape');
    assert.equal(after['S.S'].sig, before['S.S'].sig);
    assert.notEqual(after['S.S'].body, before['S.S'].body);
    assert.notEqual(after.counter.body, before.counter.body);
    assert.notEqual((await prints('m.cpp', cpp.replace('template <typename T>', 'template <typename T, typename A>'), ['St'])).St.sig, before.St.sig);
    assert.notEqual((await prints('m.cpp', cpp.replace('int a;', 'int a; int b;'), ['Node'])).Node.shape, (await prints('m.cpp', cpp, ['Node'])).Node.shape);
    // A macro the parser cannot see through: the class it hides is still found, and no macro becomes a variable.
    assert.deepEqual(await names('m.h', 'class Saver {\n  void save();\n} GTEST_ATTRIBUTE_UNUSED_;\nenum {\n  ABDAY_1 = 1,\n#define ABDAY_1 ABDAY_1\n  ABDAY_2,\n};\n'), ['Saver class', 'Saver.save method', 'ABDAY_1 enum-member', 'ABDAY_2 enum-member']);
  });

  it('C: a header the parser cannot read whole (one ERROR around it, as gcrypt.h is) names and fingerprints its declarations as a clean header does', async () => {
    const declarations = 'typedef struct handle\n{\n  int bufpos;\n} *hd_t;\nint open_it (hd_t *h);\n';
    // `extern "C" {` closed only behind `#if 0` blocks: tree-sitter recovers by wrapping the whole guard in an ERROR.
    const broken = `#ifndef X_H\n#define X_H\n#ifdef __cplusplus\nextern "C" {\n#if 0\n}\n#endif\n#endif\n${declarations}#if 0\n{\n#endif\n#ifdef __cplusplus\n}\n#endif\n#endif\n`;
    const clean = `#ifndef X_H\n#define X_H\n${declarations}#endif\n`;
    assert.deepEqual(await names('x.h', broken), ['hd_t struct', 'hd_t.bufpos property', 'open_it function']);
    assert.deepEqual(await names('x.h', broken), await names('x.h', clean));
    assert.deepEqual(await prints('x.h', broken, ['hd_t', 'hd_t.bufpos', 'open_it']), await prints('x.h', clean, ['hd_t', 'hd_t.bufpos', 'open_it']));
  });

  it('PHP: a constant\'s value is its body; modifiers and types belong to the signature of the first declaration they qualify', async () => {
    const text = '<?php\nclass Order {\n  public const LIMIT = 10, OTHER = 2;\n  protected ?string $email = null;\n}\n';
    const before = await prints('m.php', text, ['Order', 'Order.LIMIT', 'Order.OTHER', 'Order.email']);
    const value = await prints('m.php', text.replace('LIMIT = 10', 'LIMIT = 20'), ['Order', 'Order.LIMIT', 'Order.OTHER']);
    assert.equal(value.Order.shape, before.Order.shape);
    assert.equal(value['Order.LIMIT'].sig, before['Order.LIMIT'].sig);
    assert.notEqual(value['Order.LIMIT'].body, before['Order.LIMIT'].body);
    assert.deepEqual(value['Order.OTHER'], before['Order.OTHER'], 'another constant of the same line is untouched');
    const typed = await prints('m.php', text.replace('protected ?string', 'public string'), ['Order', 'Order.email']);
    assert.notEqual(typed['Order.email'].sig, before['Order.email'].sig);
    assert.notEqual(typed.Order.shape, before.Order.shape);
  });
});

describe('files nested deeper than the call stack', () => {
  const parser = new SourceParser();

  it('are walked without recursion: 20,000 nested #if in C and 3,000 nested modules in Rust keep every declaration, in order', async function () {
    this.timeout(10000); // a parse of 20,000 levels, slow on a loaded machine
    await parser.prepare('deep.c');
    const c = parser.parse('deep.c', `${'#if A\n'.repeat(20000)}int g(void) { return 1; }\n${'#endif\n'.repeat(20000)}int h(void) { return 2; }\n`);
    assert.deepEqual([...c.symbols.keys()], ['g', 'h']);
    await parser.prepare('deep.rs');
    const rust = [...parser.parse('deep.rs', `${'mod m {'.repeat(3000)}fn k() {}${'}'.repeat(3000)}\nfn j() {}\n`).symbols.keys()];
    assert.equal(rust.length, 3002);
    assert.equal(rust.at(-2), `${'m.'.repeat(3000)}k`);
    assert.equal(rust.at(-1), 'j');
  });
});

describe('the rule tables', () => {
  it('give every language, and every declaration rule, the same properties in the same order (one hidden class each in V8)', () => {
    const languages = Object.values(LANGUAGES);
    const rules = languages.flatMap((language) => Object.values(language.declarations));
    for (const language of languages) assert.deepEqual(Object.keys(language), Object.keys(languages[0]), language.grammar);
    for (const rule of rules) assert.deepEqual(Object.keys(rule), Object.keys(rules[0]));
    assert.ok(rules.length > 100);
  });
});
