/**
 * Makes a wheel sent by the input layer scroll what is under it, every time.
 *
 * Chromium scrolls a wheel on its compositor thread when the document has no
 * wheel listener. With a busy renderer main thread that path drops the scroll
 * of an inner scroller outright (the position never moves, not even seconds
 * later): 6 wheels in 20 at 20× CPU throttling in our probe, and once in a
 * loaded CI run of the actions suite. With any wheel listener registered in
 * the document, none of 80 was lost. The listener is passive and does
 * nothing: the page cannot see it (no DOM change, no `preventDefault`), and
 * Firefox is indifferent to it.
 */
let installed = false;

export function wheelReady(): void {
  if (installed) return;
  addEventListener('wheel', () => {}, { passive: true, capture: true });
  installed = true;
}
