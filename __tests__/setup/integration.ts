// Integration tests run the whole action against the fake API: a run of virtual hours takes
// real seconds, so they get more time than unit tests.
import { jest } from '@jest/globals'

jest.setTimeout(60_000)
