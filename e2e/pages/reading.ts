import type { Locator, Page } from '@playwright/test';

/**
 * The text of an element in the order a person reads it on screen: its characters sorted by where the
 * browser drew them (line by line from the top, then left to right), not by their order in the DOM. A
 * title disguised with RIGHT-TO-LEFT OVERRIDE (`invoice \u202Egnp.exe`) is spelled "gnp.exe" in the DOM
 * but drawn "exe.png"; this returns what was drawn. Characters drawn with no width (controls) are left out.
 */
export async function visibleText(locator: Locator): Promise<string> {
  return locator.evaluate((element) => {
    const drawn: Array<{ ch: string; top: number; left: number }> = [];
    const walker = element.ownerDocument.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; ) {
        const width = text.codePointAt(i)! > 0xffff ? 2 : 1;
        const range = element.ownerDocument.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + width);
        const rect = range.getClientRects()[0];
        if (rect !== undefined && rect.width > 0)
          drawn.push({ ch: text.slice(i, i + width), top: rect.top, left: rect.left });
        else if (rect !== undefined && /\s/.test(text[i])) drawn.push({ ch: ' ', top: rect.top, left: rect.left });
        i += width;
      }
    }
    const lineOf = (top: number) => Math.round(top / 4); // characters of one line share their top within a few pixels
    drawn.sort((a, b) => lineOf(a.top) - lineOf(b.top) || a.left - b.left);
    return drawn
      .map((d) => d.ch)
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
  });
}

/** Whether the page can scroll sideways: something is wider than the window. */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    return root.scrollWidth > root.clientWidth + 1;
  });
}
