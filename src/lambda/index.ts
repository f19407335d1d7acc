/**
 * messaging-webhooks/lambda: the AWS Lambda adapter (API Gateway HTTP and REST APIs, function
 * URLs, Application Load Balancer targets). No AWS SDK: the handler takes the event and returns
 * the result the integration expects.
 *
 * @packageDocumentation
 */
export * from '../receiver/lambda.js';
