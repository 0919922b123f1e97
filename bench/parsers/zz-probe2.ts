import { extractPage } from '../../crawler/extract/extract.ts';
const n = Number(process.argv[2]);
const html = `<html><body>${'<div>'.repeat(n)}x`;
for (let i = 0; i < Number(process.argv[3]); i++) extractPage(html, 'http://h.test/', { productToken: 'x' });
