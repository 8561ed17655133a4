/** A job failure with the exception name the reference reports ("failed with <Name>: <text>"). */
export class SchedulingFailure extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}
