import { useEffect, useLayoutEffect, useState, type RefObject } from 'react';

/** How many steps the answer's type may shrink by (styles.css scales its sizes by `data-fit`). */
export const FIT_STEPS = 5;

/**
 * True when something inside `root` is cut: a box that clips (the panel, an ellipsis) holds
 * more than it shows, or the answer ends below the first screen.
 */
function cut(root: HTMLElement): boolean {
  for (const el of [root, ...root.querySelectorAll<HTMLElement>('*')]) {
    const style = getComputedStyle(el);
    if (style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) return true;
    if (style.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1) return true;
  }
  // On a phone the answer is as tall as what it says: it must end on the first screen.
  return root.getBoundingClientRect().bottom + window.scrollY > window.innerHeight - 2;
}

/**
 * The step at which the answer in `ref` fits whole: it starts at full size for each new answer
 * (`key`) or window size and steps down before the browser paints until nothing is cut, so a
 * long name, a note and a German headline all stay on screen instead of being clipped.
 */
export function useFit(ref: RefObject<HTMLElement | null>, key: string): number {
  const [windowSize, setWindowSize] = useState(() => `${window.innerWidth}x${window.innerHeight}`);
  const [fit, setFit] = useState({ key: '', step: 0 });
  const fullKey = `${key}@${windowSize}`;
  const step = fit.key === fullKey ? fit.step : 0;

  useEffect(() => {
    const onResize = () => setWindowSize(`${window.innerWidth}x${window.innerHeight}`);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && step < FIT_STEPS - 1 && cut(el)) setFit({ key: fullKey, step: step + 1 });
  });

  return step;
}
