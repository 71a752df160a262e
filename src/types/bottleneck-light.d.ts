// bottleneck/light.js is the build the Octokit plugins use; it has the main entry's types.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck'
  export default Bottleneck
}
