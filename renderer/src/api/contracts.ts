/** The server's response contracts, which type the UI's requests and check answers in development. */
export * from '../../../server/src/contracts/responses.ts';
