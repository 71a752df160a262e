import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import {
  BOM,
  detectEol,
  fencedLines,
  isLineStart,
  isTrailerLine,
  lineAt,
  lineNumberAt,
  linesOf,
  pyStrip,
  sectionName,
  separatorBeforeAppended,
  splitSections,
  splitTrailer,
  usesRules,
  type FenceMode
} from '../../../src/core/text/lines.js'
import { fixtureText, toCrlf } from '../../statefile/helpers.js'

const MODES: FenceMode[] = ['ignore', 'respect']

/** Text made of lines that matter to the model: headings, fences, rules, CR, BOM-like bytes. */
const lineText = fc.oneof(
  fc.constantFrom(
    '## A',
    '## ⚙️ Machine State',
    '##  two spaces',
    '##no space',
    ' ## indented',
    '```',
    '```ts',
    '````',
    '~~~',
    '    ```',
    '---',
    '- - -',
    '',
    ' ',
    '\t',
    '# Title',
    'text | with pipe',
    'a\rb',
    '\uFEFF## not at start'
  ),
  fc.string({ maxLength: 8 })
)
const stateLikeText = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(lineText, fc.constantFrom('\n', '\r\n')), { maxLength: 30 }),
    last: lineText
  })
  .map(
    ({ bom, lines, last }) =>
      (bom ? BOM : '') + lines.map(([line, eol]) => line + eol).join('') + last
  )

describe('pyStrip', () => {
  it("strips Python's whitespace, which is not JavaScript's", () => {
    expect(pyStrip('\u001c\u0085\u00a0 x y \u3000\u2028\t')).toBe('x y')
    // Zero-width space and BOM are not whitespace to Python's strip().
    expect(pyStrip('\u200bx\uFEFF')).toBe('\u200bx\uFEFF')
  })
})

describe('detectEol', () => {
  it.each([
    ['a\r\nb\nc', '\r\n'],
    ['a\nb\r\nc', '\n'],
    ['no line break', '\n'],
    ['\r\n', '\r\n'],
    ['x\r\n', '\r\n']
  ])('%j → %j', (text, eol) => {
    expect(detectEol(text)).toBe(eol)
  })
})

describe('linesOf', () => {
  it('splits on LF and CRLF only, keeping a lone CR inside the line', () => {
    expect(linesOf('a\r\nb\rc\n\r\n').map((l) => [l.text, l.eol])).toEqual([
      ['a', '\r\n'],
      ['b\rc', '\n'],
      ['', '\r\n']
    ])
  })

  it('reads a range: the lines of text[from, to)', () => {
    const text = 'zero\none\ntwo\nthree'
    expect(linesOf(text, 5, 13).map((l) => l.text)).toEqual(['one', 'two'])
    expect(linesOf(text, 5, 12).map((l) => [l.text, l.eol])).toEqual([
      ['one', '\n'],
      ['two', '']
    ])
  })

  it('gives back every byte: text + eol of each line is the text, offsets consistent', () => {
    fc.assert(
      fc.property(stateLikeText, (text) => {
        const lines = linesOf(text)
        expect(lines.map((l) => l.text + l.eol).join('')).toBe(text)
        for (const line of lines) {
          expect(text.slice(line.start, line.end)).toBe(line.text)
          expect(text.slice(line.end, line.next)).toBe(line.eol)
          expect(line.text).not.toContain('\n')
          expect(['', '\n', '\r\n']).toContain(line.eol)
        }
      }),
      { numRuns: 300 }
    )
  })
})

describe('fencedLines', () => {
  const inside = (text: string): boolean[] => fencedLines(linesOf(text))

  it('marks fence lines and what is between them', () => {
    expect(inside('a\n```\n## x\n```\nb')).toEqual([false, true, true, true, false])
  })

  it('closes only on the same character, at least as long, with nothing after it', () => {
    expect(inside('```\n~~~\n```js\n```  \nafter')).toEqual([true, true, true, true, false])
    expect(inside('````\n```\n````\nafter')).toEqual([true, true, true, false])
    expect(inside('~~~\n```\n~~~~\nafter')).toEqual([true, true, true, false])
  })

  it('does not open on a line indented four spaces (an indented code line)', () => {
    expect(inside('    ```\n## x')).toEqual([false, false])
    expect(inside('   ```\n## x')).toEqual([true, true])
  })

  it('leaves an unclosed fence open to the end', () => {
    expect(inside('```\na\nb')).toEqual([true, true, true])
  })
})

describe('splitSections', () => {
  const fenced = '# T\n\n## A\n\n```\n## in a fence\n```\n\n---\n\n## B\ntext'

  it("'ignore': every `## ` line starts a section, as the scheduler's cut does", () => {
    const layout = splitSections(fenced, 'ignore')
    expect(layout.sections.map((s) => s.name)).toEqual(['A', 'in a fence', 'B'])
    expect(layout.sections[0]?.content).toBe('## A\n\n```\n')
  })

  it("'respect': a `## ` line inside a fenced code block is text", () => {
    const layout = splitSections(fenced, 'respect')
    expect(layout.sections.map((s) => s.name)).toEqual(['A', 'B'])
    expect(layout.sections[0]).toMatchObject({
      heading: '## A',
      content: '## A\n\n```\n## in a fence\n```\n',
      trailer: '\n---\n\n'
    })
    expect(layout.sections[1]).toMatchObject({ content: '## B\ntext', trailer: '' })
  })

  it.each(MODES)('reads the realistic fixture in every variant (%s)', (mode) => {
    for (const text of [fixtureText(), toCrlf(fixtureText()), `${BOM}${toCrlf(fixtureText())}`]) {
      const layout = splitSections(text, mode)
      expect(layout.bom).toBe(text.startsWith(BOM) ? BOM : '')
      expect(layout.eol).toBe(text.includes('\r\n') ? '\r\n' : '\n')
      expect(layout.title).toBe('Autoloop: coverage')
      expect(layout.preamble.startsWith('# Autoloop: coverage')).toBe(true)
      expect(layout.sections.map((s) => s.name)).toEqual([
        'Machine State',
        'Program Info',
        'Current Priorities',
        'Lessons Learned',
        'Foreclosed Avenues',
        'Future Directions',
        'Iteration History',
        // The fixture's history quotes a `## ` line inside a fence: a section only when ignored.
        ...(mode === 'ignore' ? ['not a heading: this line sits inside a code fence'] : [])
      ])
      expect(layout.sections[0]?.heading).toBe('## ⚙️ Machine State')
      expect(layout.sections[0]?.trailer.replace(/\r/g, '')).toBe('\n---\n\n')
    }
  })

  it.each(MODES)('keeps every byte, whatever the text (%s)', (mode) => {
    fc.assert(
      fc.property(stateLikeText, (text) => {
        const layout = splitSections(text, mode)
        expect(
          layout.bom + layout.preamble + layout.sections.map((s) => s.content + s.trailer).join('')
        ).toBe(text)
        let at = layout.bom.length + layout.preamble.length
        for (const section of layout.sections) {
          expect(section.start).toBe(at)
          expect(text.slice(section.start, section.end)).toBe(section.content + section.trailer)
          expect(section.content.startsWith(`${section.heading}`)).toBe(true)
          expect(section.heading.startsWith('## ')).toBe(true)
          expect(isLineStart(text, section.start)).toBe(true)
          // The trailer holds only blank lines and rules.
          for (const line of linesOf(section.trailer)) expect(isTrailerLine(line.text)).toBe(true)
          at = section.end
        }
        expect(at).toBe(text.length)
      }),
      { numRuns: 400 }
    )
  })

  it("'respect' finds the sections of 'ignore' that are not inside a fence, and only those", () => {
    fc.assert(
      fc.property(stateLikeText, (text) => {
        const ignored = splitSections(text, 'ignore').sections.map((s) => s.start)
        const respected = splitSections(text, 'respect').sections.map((s) => s.start)
        const lines = linesOf(text, text.startsWith(BOM) ? 1 : 0)
        const fenceOf = new Map(lines.map((line, i) => [line.start, fencedLines(lines)[i]]))
        expect(respected).toEqual(ignored.filter((start) => fenceOf.get(start) === false))
      }),
      { numRuns: 300 }
    )
  })

  it('finds no section in a file without headings, and no title without `# `', () => {
    expect(splitSections('just text\n', 'ignore')).toEqual({
      bom: '',
      eol: '\n',
      preamble: 'just text\n',
      title: null,
      sections: []
    })
  })
})

describe('section parts', () => {
  it.each([
    ['## ⚙️ Machine State', 'Machine State'],
    ['## 🚦 CI Gate', 'CI Gate'],
    ['## 👩‍💻 Dev notes', 'Dev notes'],
    ['##   Plain  ', 'Plain']
  ])('sectionName(%j) = %j', (heading, name) => {
    expect(sectionName(heading)).toBe(name)
  })

  it('splitTrailer puts trailing blank and rule lines in the trailer, never the heading', () => {
    expect(splitTrailer('## A\nx\n \n---\n\n')).toEqual({
      content: '## A\nx\n',
      trailer: ' \n---\n\n'
    })
    expect(splitTrailer('## A\n\n---\n')).toEqual({ content: '## A\n', trailer: '\n---\n' })
    expect(splitTrailer('## A')).toEqual({ content: '## A', trailer: '' })
  })
})

describe('positions for error messages', () => {
  const text = `${BOM}first\r\nsecond\nthird`

  it('lineNumberAt counts line breaks before the offset', () => {
    expect(lineNumberAt(text, 0)).toBe(1)
    expect(lineNumberAt(text, text.indexOf('second'))).toBe(2)
    expect(lineNumberAt(text, text.length)).toBe(3)
  })

  it('lineAt quotes the line without its CR or the BOM', () => {
    expect(lineAt(text, 3)).toEqual({ line: 1, lineText: 'first' })
    expect(lineAt(text, text.indexOf('cond'))).toEqual({ line: 2, lineText: 'second' })
    expect(lineAt(text, text.length - 1)).toEqual({ line: 3, lineText: 'third' })
  })

  it('isLineStart: after a line break, at 0, or just after the BOM', () => {
    expect(isLineStart(text, 0)).toBe(true)
    expect(isLineStart(text, 1)).toBe(true)
    expect(isLineStart(text, 2)).toBe(false)
    expect(isLineStart(text, text.indexOf('second'))).toBe(true)
    expect(isLineStart('ab', 1)).toBe(false)
  })
})

describe('appending a section', () => {
  it.each([
    ['no line break at the end', '# T\n\nlast', '\n\n'],
    ['one line break', '# T\n\nlast\n', '\n'],
    ['a blank line already', '# T\n\nlast\n\n', ''],
    ['a file that uses rules', '# T\n\n---\n\n## A\nlast\n', '\n---\n\n'],
    ['a file that uses rules, ending on one', '# T\n\n---\n\n## A\nx\n\n---\n\n', ''],
    ['CRLF', '# T\r\n\r\nlast', '\r\n\r\n'],
    ['an empty file', '', '']
  ])('separator after %s', (_name, text, separator) => {
    expect(separatorBeforeAppended(text)).toBe(separator)
  })

  it('usesRules sees a rule in the preamble or a section trailer, not in a section body', () => {
    expect(usesRules('# T\n\n---\n\n## A\n')).toBe(true)
    expect(usesRules('# T\n\n## A\nx\n\n---\n\n## B\n')).toBe(true)
    expect(usesRules('# T\n\n## A\n---\nx\n## B\n')).toBe(false)
    expect(usesRules(fixtureText())).toBe(true)
  })
})
