/**
 * Playwright's URL glob, as the route interface defines it: `*` matches within one path segment,
 * `**` across them, `?` is a literal question mark, `{a,b}` one of the alternatives.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let inGroup = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += '[^/]*';
    } else if (c === '{') {
      inGroup = true;
      re += '(';
    } else if (c === '}' && inGroup) {
      inGroup = false;
      re += ')';
    } else if (c === ',' && inGroup) re += '|';
    else if ('\\^$.+?()[]|/'.includes(c)) re += `\\${c}`;
    else re += c;
  }
  return new RegExp(`^${re}$`);
}
