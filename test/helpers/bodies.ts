/**
 * Answers of the reference that tests compare against (api-wire §2.3, §3.3, §3.4), written out
 * here rather than taken from the server, so that a test states what clients expect.
 */
export const unauthorized = {
  message: 'You could not be properly authenticated for this content or functionality.',
  status: 'UNAUTHORIZED',
};

export const forbidden = {
  result: 'Rejected',
  status: 'INVALID_SENDER',
  message: 'You cannot be authorized for this content or functionality.',
};

export const routeNotFound = {
  message: 'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.',
  status: 404,
};

export const methodNotAllowed = { message: 'The method is not allowed for the requested URL.', status: 405 };

/** A 422 with field messages under the request location (`json`, `query`, `path`). */
export const unprocessable = (location: string, fields: unknown) => ({
  message: { [location]: fields },
  result: 'Rejected',
  status: 'UNPROCESSABLE_ENTITY',
});
