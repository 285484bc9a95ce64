/** The fake Slack Web API lives in src/ because the demo ships it as its local Slack sink. */
export * from "../../src/demo/fake-slack-server.js";
