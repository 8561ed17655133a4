/** mathjs' one-file bundle (`lib/browser/math.js`) has the API of the package itself. */
declare module 'mathjs/lib/browser/math.js' {
  const mathjs: typeof import('mathjs');
  export default mathjs;
}
