/** The part of jStat (no published types) that the sample-ratio check uses. */
declare module "jstat" {
  const jStat: { chisquare: { cdf(x: number, df: number): number } };
  export default jStat;
}
