/**
 * Per-parser tests on real tool output (the corpus): for each failure class, every file of the
 * class (plain, coloured, re-run, shifted, another directory, GitHub Actions job log) yields
 * exactly the keys its description names. Expected keys are written from the class
 * descriptions in the manifest, never from the parser's own output.
 */
import { describe, expect, test } from '@jest/globals'
import { extractFailuresFromString } from '../../../src/core/signature/extract.js'
import { completeClasses, loadManifest, readCorpusFile } from './corpus.js'

/** Class id → the keys its description implies. */
const EXPECTED: Record<string, string[]> = {
  // "expect(total([2, 3])).toBe(6) fails in __tests__/cart.test.js (cart › total › adds the prices of two items)"
  'jest/assertion': ['jest:__tests__/cart.test.js>cart > total > adds the prices of two items'],
  // "__tests__/invoice.test.js requires ../src/invoice-format, which does not exist"
  'jest/import-failure': [
    "jest:__tests__/invoice.test.js>(suite):Cannot find module '../src/invoice-format' from '__tests__/i"
  ],
  // "toMatchSnapshot in __tests__/receipt.test.js has no stored snapshot"
  'jest/snapshot-ci': ['jest:__tests__/receipt.test.js>receipt layout'],
  // "ts-jest: TS2339 stats.fromArrays does not exist in __tests__/stats.test.ts"
  'jest/ts-type-error': [
    'jest:__tests__/stats.test.ts>(suite):TS2339',
    'tsc:TS2339:fromArrays:__tests__/stats.test.ts'
  ],
  // "TypeError … thrown in one test of __tests__/customer.test.js"
  'jest/type-error': [
    'jest:__tests__/customer.test.js>displayName > works for a guest without a profile:TypeError'
  ],
  // "(Inventory #add() adds to an existing item)"
  'mocha/assertion': ['mocha:Inventory > #add() > adds to an existing item'],
  // "the beforeEach hook of test/store.spec.js throws" (an Error)
  'mocha/hook-failure': ['mocha:Store > "before each" hook for "has a database":Error'],
  // "test/reload.spec.js awaits a promise that never settles: timeout of 200ms exceeded"
  'mocha/timeout': ['mocha:Inventory > reloads from disk:timeout'],
  // "TypeError … thrown in one test of test/label.spec.js"
  'mocha/type-error': [
    'mocha:Inventory > #label() > labels an item that is out of stock:TypeError'
  ],
  // "assert.deepEqual(splitBill(10, 3), …) fails in test/split.test.js"
  'node-test/assertion': [
    'node-test:test/split.test.js>gives the remainder cent to the first person'
  ],
  // "nested test bill > parsing > reads a thousands separator fails"
  'node-test/subtest-failure': ['node-test:test/bill.test.js>reads a thousands separator'],
  // "TypeError … thrown in one test of test/currency.test.js"
  'node-test/thrown-error': [
    'node-test:test/currency.test.js>unknown currency falls back to the code:TypeError'
  ],
  // "(slugify > joins words with underscores)"
  'vitest/assertion': ['vitest:test/slug.test.js>slugify > joins words with underscores'],
  // "test/tax.test.js imports ../src/tax.js, which does not exist"
  'vitest/import-failure': [
    "vitest:test/tax.test.js>(suite):Error: Cannot find module '../src/tax.js' imported from test"
  ],
  // "RangeError … in one test of test/order.test.js"
  'vitest/thrown-error': [
    'vitest:test/order.test.js>order form > treats an empty quantity as one item:RangeError'
  ],
  // "test/stock.test.js awaits a promise that never settles: the test times out"
  'vitest/timeout': ['vitest:test/stock.test.js>stock > loads the stock level:timeout'],
  // tsc: the class descriptions name the code, the symbol and src/report.ts
  'tsc/missing-property': ['tsc:TS2339:fromArrays:src/report.ts'],
  'tsc/unknown-name': ['tsc:TS2552:formatMean:src/report.ts'],
  'tsc/assignment-type': ['tsc:TS2322:string:src/report.ts'],
  'eslint/prefer-const': ['eslint:prefer-const:total:src/orders.ts'],
  'eslint/unused-var': ['eslint:@typescript-eslint/no-unused-vars:discount:src/orders.ts'],
  'eslint/explicit-any': ['eslint:@typescript-eslint/no-explicit-any:src/orders.ts'],
  // pytest: "tests/test_invoices.py imports shop.invoices, which does not exist … during collection"
  'pytest/collection-error': ['pytest:error:tests/test_invoices.py:ModuleNotFoundError'],
  // "tests/test_rates.py::test_luxury_rate raises KeyError 'luxury'"
  'pytest/exception': ['pytest:tests/test_rates.py::test_luxury_rate:KeyError'],
  // "the database fixture of tests/test_orders.py raises ConnectionError: test_order_count
  // errors at setup"
  'pytest/fixture-error': ['pytest:error:tests/test_orders.py::test_order_count:ConnectionError'],
  // "parametrised test tests/test_vat.py::test_price_with_vat[19.99-standard-23.98] expects …"
  'pytest/param-assertion': ['pytest:tests/test_vat.py::test_price_with_vat[19.99-standard-23.98]'],
  // mypy: "[arg-type]: app/service.py passes age_text (str) as the int field age of Customer"
  'mypy/arg-type': ['mypy:arg-type:age:app/service.py'],
  // "[attr-defined]: app/service.py calls customer.full_name(), which Customer does not have"
  // (mypy also reports the Any it then returns)
  'mypy/attr-defined': [
    'mypy:attr-defined:Customer:app/service.py',
    'mypy:no-any-return:str:app/service.py'
  ],
  // "[return-value]: app/service.py returns customer.age (int) …"
  'mypy/return-value': ['mypy:return-value:int:app/service.py'],
  // flake8: "E711: app/report.py compares title to None with =="
  'flake8/none-comparison': ['flake8:E711:app/report.py'],
  // "F821: app/report.py calls render_header, which is defined nowhere"
  'flake8/undefined-name': ['flake8:F821:render_header:app/report.py'],
  // "F401: app/report.py imports os and never uses it"
  'flake8/unused-import': ['flake8:F401:os:app/report.py'],
  // go: "pricing/label.go assigns the string from fmt.Sprintf to a variable of type int"
  'go-build/type-mismatch': [
    'go:pricing/label.go:cannot use fmt.Sprintf("%d.%02d", amount / N, amount % N) (value of type string)'
  ],
  // "pricing/tax.go uses StandardRate, which is defined nowhere: undefined: StandardRate"
  'go-build/undefined': ['go:pricing/tax.go:undefined: StandardRate'],
  // "TestTotalAddsShipping in ./pricing fails its t.Errorf check"
  'go-test/assertion': ['go:example.com/shop/pricing:TestTotalAddsShipping'],
  // "parse/store_test.go calls NewStore, which is undefined: the ./parse test binary does not build"
  'go-test/build-failed': ['go:parse/store_test.go:undefined: NewStore'],
  // "TestPriceCache in ./pricing panics"
  'go-test/panic': ['go:example.com/shop/pricing:TestPriceCache:panic'],
  // "subtest TestCents/negative in ./parse fails" (its parent TestCents is left out)
  'go-test/subtest': ['go:example.com/shop/parse:TestCents/negative'],
  // "printf check: pricing/report.go passes the string name to a %d verb of fmt.Printf"
  'go-vet/printf': ['go:pricing/report.go:fmt.Printf format %d has arg name of wrong type string'],
  // "assign check: pricing/round.go assigns amount to itself"
  'go-vet/self-assign': ['go:pricing/round.go:self-assignment of amount to amount'],
  // rustc: "E0308: src/extra.rs assigns the String from format! to a variable typed u32"
  'rustc/mismatched-types': ['rustc:E0308:src/extra.rs'],
  // "E0599: src/extra.rs calls round_up_to on a u32, which has no such method"
  'rustc/unknown-method': ['rustc:E0599:round_up_to:src/extra.rs'],
  // "E0425: src/extra.rs uses STANDARD_RATE, which is defined nowhere"
  'rustc/unresolved-name': ['rustc:E0425:STANDARD_RATE:src/extra.rs'],
  // clippy: "clippy::len_zero …: src/extra.rs compares items.len() == 0" (keyed by the lint's
  // message, which the short format prints too; it never prints the lint name)
  'clippy/len-zero': ['rustc:length comparison to zero:src/extra.rs'],
  // "clippy::needless_return …: src/extra.rs ends a function with return"
  'clippy/needless-return': ['rustc:unneeded `return` statement:src/extra.rs'],
  // cargo test: "extra::tests::shipping_is_added_once in the shop library fails its assert_eq!"
  'cargo-test/assertion': ['cargo:shop:extra::tests::shipping_is_added_once'],
  // "receipt_total_matches in tests/receipt.rs (an integration-test binary) fails its assert!"
  // (an assert! with a message panics with the message alone, which reads as any other panic)
  'cargo-test/integration': ['cargo:receipt:receipt_total_matches:panic'],
  // "extra::tests::cake_has_a_price calls unwrap() on None"
  'cargo-test/unwrap-none': ['cargo:shop:extra::tests::cake_has_a_price:unwrap on None'],
  // javac (plain and through Maven): Receipt.java calls totalWithTax(int[]), which does not exist
  'javac/cannot-find-symbol': [
    'javac:cannot find symbol:method totalWithTax(int[]):src/main/java/shop/Receipt.java'
  ],
  // RSpec: "Cart#total adds the shipping to the prices expects eq(949)" (an expectation, no kind)
  'rspec/expectation': ['rspec:spec/total_spec.rb>Cart#total adds the shipping to the prices'],
  // "… raises ZeroDivisionError inside lib/cart.rb (spec/average_spec.rb)"
  'rspec/zero-division': [
    'rspec:spec/average_spec.rb>Cart#average is zero for an empty cart:ZeroDivisionError'
  ],
  // "… calls Cart#discount, which does not exist: NoMethodError (spec/discount_spec.rb)"
  'rspec/no-method': [
    'rspec:spec/discount_spec.rb>Cart#discount takes ten percent off:NoMethodError'
  ],
  // PHPUnit: "Shop\Tests\TotalTest::testAddsShipping fails assertSame"
  'phpunit/assertion': ['phpunit:Shop\\Tests\\TotalTest::testAddsShipping'],
  // "Shop\Tests\AverageTest::testEmptyCartAverage errors: DivisionByZeroError"
  'phpunit/error': ['phpunit:Shop\\Tests\\AverageTest::testEmptyCartAverage:DivisionByZeroError'],
  // 'Shop\Tests\TaxTest::testWithTax with data set "reduced" fails' (its values are not in the key)
  'phpunit/data-set': ['phpunit:Shop\\Tests\\TaxTest::testWithTax with data set "reduced"'],
  // JUnit 4's runner: "shop.CartTest.addsShipping fails assertEquals"
  'junit/assertion': ['junit:shop.CartTest.addsShipping'],
  // "shop.CustomerTest.labelsACustomerWithoutCity throws a NullPointerException"
  'junit/exception': ['junit:shop.CustomerTest.labelsACustomerWithoutCity:NullPointerException'],
  // webpack: "TS2339: src/report.ts calls stats.fromPairs" — the tsc key, whichever loader printed it
  'webpack/missing-property': ['tsc:TS2339:fromPairs:src/report.ts'],
  // "TS2345: src/report.ts passes the string … to stats.round's number parameter"
  'webpack/wrong-argument': ['tsc:TS2345:string:src/report.ts'],
  // mocha: "two failures in test/totals.spec.js: assert.deepStrictEqual … then a TypeError"
  'mocha/deep-equal': [
    'mocha:Totals > sums the stock of every item',
    'mocha:Totals > reports an unknown item as missing:TypeError'
  ],
  // go: "TestRefreshRates in ./pricing … panics with 'test timed out'"
  'go-test/timeout': ['go:example.com/shop/pricing:TestRefreshRates:timeout'],
  // "BenchmarkTotal in ./pricing fails its b.Fatalf check"
  'go-test/benchmark': ['go:example.com/shop/pricing:BenchmarkTotal'],
  // pytest: "… runs flake8 …, prints its report … and fails its assert": flake8's report is the
  // test's captured output, not this run's failure
  'pytest/nested-tool': ['pytest:tests/test_generated.py::test_generated_code_is_clean'],
  // Surefire: CartTest.addsShipping fails its assertion; CustomerTest throws a
  // NullPointerException (its simple class name, as JUnit and Gradle name it); the class without
  // its package, as the summary prints it
  'maven-surefire/assertion': ['surefire:CartTest.addsShipping'],
  'maven-surefire/exception': [
    'surefire:CustomerTest.labelsACustomerWithoutCity:NullPointerException'
  ],
  // "JUnit 4 Parameterized case shop.DiscountTableTest.discount[1: discount(99, 50) = 50] fails"
  'maven-surefire/parameterized': ['surefire:DiscountTableTest.discount[1: discount(99, 50) = 50]'],
  // Gradle: "shop.CartTest > addsShipping fails with java.lang.AssertionError"
  'gradle/assertion': ['gradle:shop.CartTest.addsShipping'],
  // "shop.CustomerTest > labelsACustomerWithoutCity fails with a NullPointerException"
  'gradle/exception': ['gradle:shop.CustomerTest.labelsACustomerWithoutCity:NullPointerException'],
  // Receipt.java assigns a String to an int
  'javac/incompatible-types': [
    'javac:incompatible types: String cannot be converted to int:src/main/java/shop/Receipt.java'
  ],
  // bun: "expect(total([2, 3])).toBe(5) fails in test/cart.test.ts (cart > adds the prices of two items)"
  'bun/assertion': ['bun:test/cart.test.ts>cart > adds the prices of two items'],
  // "TypeError … thrown in test/customer.test.ts (labels a missing customer)"
  'bun/thrown': ['bun:test/customer.test.ts>labels a missing customer'],
  // "two files each have a test titled 'adds'; only test/discount.test.ts's fails"
  'bun/same-title': ['bun:test/discount.test.ts>adds'],
  // deno: "… in cart_test.ts (adds the prices of two items)"
  'deno/assertion': ['deno:cart_test.ts>adds the prices of two items'],
  'deno/thrown': ['deno:customer_test.ts>labels a missing customer'],
  // "the step 'rejects a negative quantity' of the test 'order' fails in order_test.ts"
  'deno/step': ['deno:order_test.ts>order > rejects a negative quantity'],
  // Playwright: "… fails in tests/cart.spec.ts (cart › adds the prices of two items)"
  'playwright/assertion': ['playwright:tests/cart.spec.ts>cart > adds the prices of two items'],
  'playwright/thrown': ['playwright:tests/customer.spec.ts>labels a missing customer'],
  // "nested describes: checkout › shipping › is free above 50 fails in tests/checkout.spec.ts"
  'playwright/describe': [
    'playwright:tests/checkout.spec.ts>checkout > shipping > is free above 50'
  ],
  // vite: "src/main.ts imports price-format, which is not installed"
  'vite/unresolved-import': ['vite:cannot resolve:price-format'],
  // "src/main.ts misses the closing parenthesis of a reduce call" (the transform plugin's message)
  'vite/syntax-error': ['vite:builtin:vite-transform:Expected `,` or `)` but found `Identifier`'],
  // Biome: "lint/suspicious/noExplicitAny (set to error): src/orders.ts …"
  'biome/lint-error': ['biome:lint/suspicious/noExplicitAny:src/orders.ts'],
  // "src/orders.ts is indented with four spaces where Biome's formatter prints two"
  'biome/format': ['biome:format:src/orders.ts'],
  // CTest: "cart_total: cart_test.c … exits 1"; "stock_refresh … CTest stops it at its TIMEOUT"
  'ctest/failed': ['ctest:cart_total'],
  'ctest/timeout': ['ctest:stock_refresh:timeout'],
  // unittest: "tests/test_vat.py VatTest.test_standard_rate expects 12.5 …" (a failed assertion)
  'unittest/fail': ['unittest:tests.test_vat.VatTest.test_standard_rate'],
  // "tests/test_vat.py VatTest.test_luxury_rate: shop.price_with_vat raises KeyError 'luxury'"
  'unittest/error': ['unittest:tests.test_vat.VatTest.test_luxury_rate:KeyError'],
  // RSpec: "spec/invoice_spec.rb describes Invoice, which is defined nowhere: the file fails to load (NameError)"
  'rspec/load-error': ['rspec:spec/invoice_spec.rb>(load):NameError'],
  // next build: "app/page.tsx assigns the string 'twelve' to total: number" (Next.js prints no TS code)
  'next/type-error': ["next:Type 'string' is not assignable to type 'number'.:app/page.tsx"],
  // next lint: "app/page.tsx uses <img> where @next/next/no-img-element … wants <Image />"; the
  // first quoted name of the rule's message is `next/image`
  'next/lint-error': ['eslint:@next/next/no-img-element:next/image:app/page.tsx']
}

const present = new Map(completeClasses().map((cls) => [cls.id, cls]))
const unavailable = loadManifest().unavailable ?? {}

describe.each(Object.entries(EXPECTED))('%s', (id, keys) => {
  const cls = present.get(id)
  const tool =
    loadManifest().classes.find((entry) => entry.id === id)?.tool ?? id.split('/')[0] ?? ''
  if (cls === undefined) {
    test(`the corpus has the class (or lists ${tool} as unavailable)`, () => {
      expect(tool in unavailable).toBe(true)
    })
    return
  }
  test.each(cls.files)('%s', (file) => {
    const found = extractFailuresFromString(readCorpusFile(file)).findings.map((f) => f.key)
    expect([...found].sort()).toEqual([...keys].sort())
  })
})

describe('Surefire, a log cut before its per-test lines', () => {
  test('a test named only in the summary keeps the summary’s shortened type', () => {
    // The same run as maven-surefire/exception from its `Results:` on: the summary prints the
    // NullPointerException as `» NullPointer`, and nothing else names the type.
    const whole = readCorpusFile('maven-surefire/exception/default.txt')
    const cut = whole.slice(whole.indexOf('[INFO] Results:'))
    const found = extractFailuresFromString(cut).findings.map((f) => f.key)
    expect(found).toEqual(['surefire:CustomerTest.labelsACustomerWithoutCity:NullPointer'])
  })
})
